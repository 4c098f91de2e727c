import { type DB, type Row, stmt, str, strOrNull, num, json } from "../db/db.ts";
import type { Id } from "../lib/ids.ts";

// The audit log's rows (migration 0030): insert and read, never update or delete.

export interface ActionLog {
  id: Id;
  /** The actor's account; null for the server itself. */
  accountId: Id | null;
  actorName: string;
  source: "api" | "cli" | "job";
  action: string;
  targetType: string;
  targetId: string | null;
  humanIdentifier: string | null;
  changes: Record<string, [unknown, unknown]>;
  createdAt: number;
}

function rowToActionLog(r: Row): ActionLog {
  return {
    id: str(r.id),
    accountId: strOrNull(r.account_id),
    actorName: r.actor_name as string,
    source: r.source as ActionLog["source"],
    action: r.action as string,
    targetType: r.target_type as string,
    targetId: (r.target_id as string | null) ?? null,
    humanIdentifier: (r.human_identifier as string | null) ?? null,
    changes: json(r.changes, {}),
    createdAt: num(r.created_at),
  };
}

export function insertActionLog(db: DB, l: ActionLog): void {
  stmt(
    db,
    `INSERT INTO admin_action_logs (id, account_id, actor_name, source, action, target_type, target_id, human_identifier, changes, created_at)
     VALUES (@id, @accountId, @actorName, @source, @action, @targetType, @targetId, @humanIdentifier, @changes, @createdAt)`,
  ).run({
    ...l,
    id: BigInt(l.id),
    accountId: l.accountId === null ? null : BigInt(l.accountId),
    changes: JSON.stringify(l.changes),
  });
}

export interface ActionLogFilter {
  /** The actor's account. */
  accountId?: Id;
  action?: string;
  targetType?: string;
  targetId?: string;
  maxId?: Id;
  limit: number;
}

/** Newest first, keyset-paged by id. */
export function listActionLogs(db: DB, f: ActionLogFilter): ActionLog[] {
  const rows = stmt(
    db,
    `SELECT * FROM admin_action_logs
     WHERE (@accountId IS NULL OR account_id = @accountId)
       AND (@action IS NULL OR action = @action)
       AND (@targetType IS NULL OR target_type = @targetType)
       AND (@targetId IS NULL OR target_id = @targetId)
       AND (@maxId IS NULL OR id < @maxId)
     ORDER BY id DESC LIMIT @limit`,
  ).all({
    accountId: f.accountId ? BigInt(f.accountId) : null,
    action: f.action ?? null,
    targetType: f.targetType ?? null,
    targetId: f.targetId ?? null,
    maxId: f.maxId ? BigInt(f.maxId) : null,
    limit: BigInt(f.limit),
  }) as Row[];
  return rows.map(rowToActionLog);
}

/** Everyone who has an entry (the actor filter's choices), by name; the server itself has no account. */
export function listActionLogActors(db: DB): { accountId: Id; name: string }[] {
  const rows = stmt(db, "SELECT account_id, max(actor_name) AS name FROM admin_action_logs WHERE account_id IS NOT NULL GROUP BY account_id ORDER BY name").all() as Row[];
  return rows.map((r) => ({ accountId: str(r.account_id), name: r.name as string }));
}

/** The (action, target type) pairs present (the action filter's choices). */
export function listActionLogKinds(db: DB): { action: string; targetType: string }[] {
  const rows = stmt(db, "SELECT DISTINCT action, target_type FROM admin_action_logs ORDER BY target_type, action").all() as Row[];
  return rows.map((r) => ({ action: r.action as string, targetType: r.target_type as string }));
}
