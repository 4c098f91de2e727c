import { type DB, type Row, stmt, num, strOrNull } from "../db/db.ts";
import type { Id } from "../lib/ids.ts";

// Outgoing activity bodies (migration 0010): stored once, referred to by every
// `federation.deliver` job (payload member `a`) that sends them to one inbox.

export function insertOutgoingActivity(db: DB, a: { id: Id; actorAccountId: Id | null; body: string; createdAt: number }): void {
  stmt(db, "INSERT INTO outgoing_activities (id, actor_account_id, body, created_at) VALUES (@id, @actor, @body, @createdAt)").run({
    id: BigInt(a.id),
    actor: a.actorAccountId === null ? null : BigInt(a.actorAccountId),
    body: a.body,
    createdAt: a.createdAt,
  });
}

/** What one delivery needs, in one query: the body and the signing account's key. */
export interface DeliveryContext {
  body: string;
  /** null: the instance actor signs. */
  actorAccountId: Id | null;
  actorUri: string | null;
  privateKeyPem: string | null;
  publicKeyId: string | null;
}

export function findDeliveryContext(db: DB, id: Id): DeliveryContext | undefined {
  const r = stmt(
    db,
    `SELECT o.body, o.actor_account_id, a.uri, a.private_key_pem, a.public_key_id
     FROM outgoing_activities o LEFT JOIN accounts a ON a.id = o.actor_account_id WHERE o.id = ?`,
  ).get(BigInt(id)) as Row | undefined;
  if (!r) return undefined;
  return {
    body: r.body as string,
    actorAccountId: strOrNull(r.actor_account_id),
    actorUri: (r.uri as string | null) ?? null,
    privateKeyPem: (r.private_key_pem as string | null) ?? null,
    publicKeyId: (r.public_key_id as string | null) ?? null,
  };
}

/**
 * Deletes activities created before `before` that no job refers to any more (their
 * deliveries succeeded, failed for good or were dropped). The job ids are read once into a
 * temporary b-tree by SQLite (a non-correlated IN), so this stays one pass over each table.
 */
export function purgeOutgoingActivities(db: DB, before: number, jobNames: string[]): number {
  const r = stmt(
    db,
    `DELETE FROM outgoing_activities
     WHERE created_at < @before
       AND id NOT IN (SELECT CAST(json_extract(payload, '$.a') AS INTEGER) FROM jobs
                      WHERE name IN (SELECT value FROM json_each(@names)) AND json_extract(payload, '$.a') IS NOT NULL)`,
  ).run({ before, names: JSON.stringify(jobNames) });
  return num(r.changes);
}
