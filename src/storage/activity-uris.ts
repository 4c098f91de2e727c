import { type DB, type Row, stmt, str, num } from "../db/db.ts";
import type { Id } from "../lib/ids.ts";
import { type FollowRecord, rowToFollowRecord } from "./follows.ts";

// Relationship rows found and re-keyed by the id of the activity that made them: incoming
// Undo/Accept/Reject name a Follow, Like, Block or Announce by id (AP §5.4, §5.5).

export function findFollowByUri(db: DB, uri: string): FollowRecord | undefined {
  const r = stmt(db, "SELECT * FROM follows WHERE uri = ?").get(uri) as Row | undefined;
  return r && rowToFollowRecord(r);
}

export function findFollowRequestByUri(db: DB, uri: string): FollowRecord | undefined {
  const r = stmt(db, "SELECT * FROM follow_requests WHERE uri = ?").get(uri) as Row | undefined;
  return r && rowToFollowRecord(r);
}

/** A repeated Follow carries a new id: the stored one follows it (Accept/Undo will name it). */
export function updateFollowUri(db: DB, table: "follows" | "follow_requests", id: Id, uri: string, now: number): void {
  stmt(db, `UPDATE ${table} SET uri = @uri, updated_at = @now WHERE id = @id`).run({ id: BigInt(id), uri, now });
}

/** The favourite a Like made: who favourited which status. */
export function findFavouriteByUri(db: DB, uri: string): { accountId: Id; statusId: Id } | undefined {
  const r = stmt(db, "SELECT account_id, status_id FROM favourites WHERE uri = ?").get(uri) as Row | undefined;
  return r && { accountId: str(r.account_id), statusId: str(r.status_id) };
}

export function findBlockPairByUri(db: DB, uri: string): { accountId: Id; targetAccountId: Id } | undefined {
  const r = stmt(db, "SELECT account_id, target_account_id FROM blocks WHERE uri = ?").get(uri) as Row | undefined;
  return r && { accountId: str(r.account_id), targetAccountId: str(r.target_account_id) };
}

/** A repeated Block only updates the stored id (AP §5.8). */
export function updateBlockUri(db: DB, accountId: Id, targetId: Id, uri: string): void {
  stmt(db, "UPDATE blocks SET uri = ? WHERE account_id = ? AND target_account_id = ?").run(uri, BigInt(accountId), BigInt(targetId));
}

/** Local users' follows of the account (a Move carries them over). */
export function localFollowsOf(db: DB, accountId: Id): FollowRecord[] {
  const rows = stmt(db, "SELECT f.* FROM follows f JOIN users u ON u.account_id = f.account_id WHERE f.target_account_id = ? ORDER BY f.id").all(
    BigInt(accountId),
  ) as Row[];
  return rows.map(rowToFollowRecord);
}

/** When the account's last Move was carried out (ms), if ever. */
export function lastMoveAt(db: DB, accountId: Id): number | undefined {
  const r = stmt(db, "SELECT processed_at FROM account_moves WHERE account_id = ?").get(BigInt(accountId)) as Row | undefined;
  return r ? num(r.processed_at) : undefined;
}

export function recordMove(db: DB, accountId: Id, targetId: Id, now: number): void {
  stmt(
    db,
    `INSERT INTO account_moves (account_id, target_account_id, processed_at) VALUES (@a, @t, @now)
     ON CONFLICT (account_id) DO UPDATE SET target_account_id = @t, processed_at = @now`,
  ).run({ a: BigInt(accountId), t: BigInt(targetId), now });
}
