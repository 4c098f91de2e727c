// SQL of discovery: remote accounts by key id or web URL, stale ones for the refresh task, and
// where a suspension came from (migration 0012).
import { type DB, type Row, stmt, str } from "../db/db.ts";
import type { Id } from "../lib/ids.ts";
import { type Account, rowToAccount } from "./accounts.ts";
import { sameHost } from "../lib/urls.ts";

/** The account whose (primary) public key has this id, local or remote. */
export function findAccountByPublicKeyId(db: DB, keyId: string): Account | undefined {
  const r = stmt(db, "SELECT * FROM accounts WHERE public_key_id = ? LIMIT 1").get(keyId) as Row | undefined;
  return r && rowToAccount(r);
}

/**
 * An account by its profile page URL (`https://host/@bob`); the uri is tried first by callers.
 * Only on the host of the account's own uri: a peer must not claim another server's profiles.
 */
export function findAccountByUrl(db: DB, url: string): Account | undefined {
  const r = (stmt(db, "SELECT * FROM accounts WHERE url = ? ORDER BY id LIMIT 8").all(url) as Row[]).find((row) => sameHost(row.uri as string, url));
  return r && rowToAccount(r);
}

/**
 * Remote accounts whose actor was last fetched before `before`, oldest first, suspended ones
 * skipped: the refresh task's next batch. Rows never fetched (fetched_at NULL) were not made
 * by discovery and are left to whoever made them.
 */
export function listStaleRemoteAccounts(db: DB, before: number, limit: number): { id: Id; uri: string }[] {
  const rows = stmt(
    db,
    `SELECT id, uri FROM accounts
     WHERE domain IS NOT NULL AND suspended_at IS NULL AND fetched_at < @before
     ORDER BY fetched_at, id LIMIT @limit`,
  ).all({ before, limit }) as Row[];
  return rows.map((r) => ({ id: str(r.id), uri: r.uri as string }));
}

/** Marks an account as fetched now without changing anything else (a failed or skipped refresh). */
export function touchAccountFetched(db: DB, id: Id, at: number): void {
  stmt(db, "UPDATE accounts SET fetched_at = ? WHERE id = ?").run(at, BigInt(id));
}

export type SuspensionOrigin = "local" | "remote";

export function findSuspensionOrigin(db: DB, id: Id): SuspensionOrigin | null {
  const r = stmt(db, "SELECT suspension_origin FROM accounts WHERE id = ?").get(BigInt(id)) as Row | undefined;
  return (r?.suspension_origin as SuspensionOrigin | null | undefined) ?? null;
}

/** Sets or lifts a suspension and records who made it. */
export function setSuspension(db: DB, id: Id, at: number | null, origin: SuspensionOrigin | null): void {
  stmt(db, "UPDATE accounts SET suspended_at = ?, suspension_origin = ? WHERE id = ?").run(at, origin, BigInt(id));
}
