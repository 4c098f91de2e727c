import { type DB, type Row, stmt } from "../db/db.ts";
import type { Id } from "../lib/ids.ts";

// Rows for the CSV exports (Mastodon's app/models/export.rb), read with `.iterate()` so a long
// list streams out without being held in memory. `domain` is NULL for local accounts; the
// service spells those out with our own domain, as Mastodon does.

export interface ExportAccountRow {
  username: string;
  domain: string | null;
}

const acctCols = "a.username AS username, a.domain AS domain";

export function iterateFollowing(db: DB, accountId: Id): IterableIterator<Row> {
  return stmt(
    db,
    `SELECT ${acctCols}, f.show_reblogs, f.notify, f.languages FROM follows f JOIN accounts a ON a.id = f.target_account_id
     WHERE f.account_id = ? ORDER BY f.id DESC`,
  ).iterate(BigInt(accountId)) as IterableIterator<Row>;
}

export function iterateFollowers(db: DB, accountId: Id): IterableIterator<Row> {
  return stmt(
    db,
    `SELECT ${acctCols} FROM follows f JOIN accounts a ON a.id = f.account_id WHERE f.target_account_id = ? ORDER BY f.id DESC`,
  ).iterate(BigInt(accountId)) as IterableIterator<Row>;
}

export function iterateBlocked(db: DB, accountId: Id): IterableIterator<Row> {
  return stmt(
    db,
    `SELECT ${acctCols} FROM blocks b JOIN accounts a ON a.id = b.target_account_id WHERE b.account_id = ? ORDER BY b.id DESC`,
  ).iterate(BigInt(accountId)) as IterableIterator<Row>;
}

/** Expired mutes are as good as deleted (see storage/mutes.ts), so they are left out. */
export function iterateMuted(db: DB, accountId: Id, now: number): IterableIterator<Row> {
  return stmt(
    db,
    `SELECT ${acctCols}, m.hide_notifications FROM mutes m JOIN accounts a ON a.id = m.target_account_id
     WHERE m.account_id = ? AND (m.expires_at IS NULL OR m.expires_at > ?) ORDER BY m.id DESC`,
  ).iterate(BigInt(accountId), now) as IterableIterator<Row>;
}

export function iterateListMembers(db: DB, accountId: Id): IterableIterator<Row> {
  return stmt(
    db,
    `SELECT l.title AS title, ${acctCols} FROM lists l JOIN list_accounts la ON la.list_id = l.id JOIN accounts a ON a.id = la.account_id
     WHERE l.account_id = ? ORDER BY l.id, la.id`,
  ).iterate(BigInt(accountId)) as IterableIterator<Row>;
}

export function iterateBlockedDomains(db: DB, accountId: Id): IterableIterator<Row> {
  return stmt(db, "SELECT domain FROM account_domain_blocks WHERE account_id = ? ORDER BY id").iterate(BigInt(accountId)) as IterableIterator<Row>;
}

export function iterateBookmarkUris(db: DB, accountId: Id): IterableIterator<Row> {
  return stmt(
    db,
    `SELECT s.uri AS uri FROM bookmarks b JOIN statuses s ON s.id = b.status_id
     WHERE b.account_id = ? AND s.deleted_at IS NULL ORDER BY b.id DESC`,
  ).iterate(BigInt(accountId)) as IterableIterator<Row>;
}

/** Counts shown beside each download on the export page. */
export function exportCounts(db: DB, accountId: Id, now: number): Record<string, number> {
  const id = BigInt(accountId);
  const n = (sql: string, ...args: unknown[]) => Number((stmt(db, sql).get(id, ...args) as { n: number | bigint }).n);
  return {
    follows: n("SELECT count(*) AS n FROM follows WHERE account_id = ?"),
    followers: n("SELECT count(*) AS n FROM follows WHERE target_account_id = ?"),
    lists: n("SELECT count(*) AS n FROM lists WHERE account_id = ?"),
    blocks: n("SELECT count(*) AS n FROM blocks WHERE account_id = ?"),
    mutes: n("SELECT count(*) AS n FROM mutes WHERE account_id = ? AND (expires_at IS NULL OR expires_at > ?)", now),
    domain_blocks: n("SELECT count(*) AS n FROM account_domain_blocks WHERE account_id = ?"),
    bookmarks: n("SELECT count(*) AS n FROM bookmarks b JOIN statuses s ON s.id = b.status_id WHERE b.account_id = ? AND s.deleted_at IS NULL"),
  };
}
