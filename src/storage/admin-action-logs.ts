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
  /** Entries about an account: it (target Account) or its user (target User), as Mastodon's target_account_id. */
  targetAccount?: { accountId: Id; userId: Id | null };
  maxId?: Id;
  limit: number;
}

/**
 * Newest first, keyset-paged by id. The WHERE names only the filters given, so that SQLite
 * picks the index of the most selective one (actor, kind or target) rather than walking the
 * whole log by id.
 */
export function listActionLogs(db: DB, f: ActionLogFilter): ActionLog[] {
  const where: string[] = [];
  const params: Record<string, unknown> = { limit: BigInt(f.limit) };
  const add = (sql: string, values: Record<string, unknown>) => {
    where.push(sql);
    Object.assign(params, values);
  };
  if (f.accountId) add("account_id = @accountId", { accountId: BigInt(f.accountId) });
  if (f.action !== undefined) add("action = @action", { action: f.action });
  if (f.targetType !== undefined) add("target_type = @targetType", { targetType: f.targetType });
  if (f.targetId !== undefined) add("target_id = @targetId", { targetId: f.targetId });
  if (f.targetAccount) {
    const { accountId, userId } = f.targetAccount;
    add(
      userId === null
        ? "(target_type = 'Account' AND target_id = @targetAccountId)"
        : "((target_type = 'Account' AND target_id = @targetAccountId) OR (target_type = 'User' AND target_id = @targetUserId))",
      userId === null ? { targetAccountId: accountId } : { targetAccountId: accountId, targetUserId: userId },
    );
  }
  if (f.maxId) add("id < @maxId", { maxId: BigInt(f.maxId) });
  const sql = `SELECT * FROM admin_action_logs${where.length ? ` WHERE ${where.join(" AND ")}` : ""} ORDER BY id DESC LIMIT @limit`;
  return (stmt(db, sql).all(params) as Row[]).map(rowToActionLog);
}

/**
 * Everyone who has an entry (the actor filter's choices), by name, under the name of their
 * latest entry; the server itself has no account. Skips from one account_id to the next
 * through admin_action_logs_account: a seek per actor, however long the log.
 */
export function listActionLogActors(db: DB): { accountId: Id; name: string }[] {
  const rows = stmt(
    db,
    `WITH RECURSIVE actors(id) AS (
       SELECT (SELECT min(account_id) FROM admin_action_logs)
       UNION ALL
       SELECT (SELECT min(account_id) FROM admin_action_logs WHERE account_id > actors.id) FROM actors WHERE actors.id IS NOT NULL
     )
     SELECT id AS account_id, (SELECT actor_name FROM admin_action_logs WHERE account_id = actors.id ORDER BY id DESC LIMIT 1) AS name
     FROM actors WHERE id IS NOT NULL ORDER BY name, id`,
  ).all() as Row[];
  return rows.map((r) => ({ accountId: str(r.account_id), name: r.name as string }));
}

/**
 * The (action, target type) pairs present (the action filter's choices). Skips through
 * admin_action_logs_kind: from a pair to the next action of the same target type, or else to
 * the first action of the next target type; a few seeks per pair, however long the log.
 */
export function listActionLogKinds(db: DB): { action: string; targetType: string }[] {
  const next = (t: string, a: string) => `(SELECT action FROM admin_action_logs WHERE target_type = ${t} AND action > ${a} ORDER BY action LIMIT 1)`;
  const first = (t: string) => `(SELECT action FROM admin_action_logs WHERE target_type = ${t} ORDER BY action LIMIT 1)`;
  const nextType = "(SELECT target_type FROM admin_action_logs WHERE target_type > kinds.t ORDER BY target_type LIMIT 1)";
  const rows = stmt(
    db,
    `WITH RECURSIVE kinds(t, a) AS (
       SELECT t, ${first("t")} FROM (SELECT (SELECT min(target_type) FROM admin_action_logs) AS t)
       UNION ALL
       SELECT CASE WHEN ${next("kinds.t", "kinds.a")} IS NULL THEN ${nextType} ELSE kinds.t END,
              coalesce(${next("kinds.t", "kinds.a")}, ${first(nextType)})
       FROM kinds WHERE kinds.t IS NOT NULL
     )
     SELECT t AS target_type, a AS action FROM kinds WHERE t IS NOT NULL`,
  ).all() as Row[];
  return rows.map((r) => ({ action: r.action as string, targetType: r.target_type as string }));
}
