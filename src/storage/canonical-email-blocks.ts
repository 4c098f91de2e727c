import { type DB, type Row, stmt, str, num } from "../db/db.ts";
import type { Id } from "../lib/ids.ts";
import { rowsPageById } from "./id-pages.ts";
import type { Page } from "./timelines.ts";

/** A blocked canonical address, kept only as its hash (Mastodon's CanonicalEmailBlock). */
export interface CanonicalEmailBlock {
  id: Id;
  hash: string;
  referenceAccountId: Id | null;
  createdAt: number;
  updatedAt: number;
}

const rowTo = (r: Row): CanonicalEmailBlock => ({
  id: str(r.id),
  hash: r.canonical_email_hash as string,
  referenceAccountId: r.reference_account_id === null ? null : str(r.reference_account_id),
  createdAt: num(r.created_at),
  updatedAt: num(r.updated_at),
});

export function insertCanonicalEmailBlock(db: DB, b: CanonicalEmailBlock): void {
  stmt(
    db,
    "INSERT INTO canonical_email_blocks (id, canonical_email_hash, reference_account_id, created_at, updated_at) VALUES (@id, @hash, @ref, @createdAt, @updatedAt)",
  ).run({ id: BigInt(b.id), hash: b.hash, ref: b.referenceAccountId === null ? null : BigInt(b.referenceAccountId), createdAt: b.createdAt, updatedAt: b.updatedAt });
}

export function findCanonicalEmailBlockById(db: DB, id: Id): CanonicalEmailBlock | undefined {
  const r = stmt(db, "SELECT * FROM canonical_email_blocks WHERE id = ?").get(BigInt(id)) as Row | undefined;
  return r && rowTo(r);
}

export function findCanonicalEmailBlockByHash(db: DB, hash: string): CanonicalEmailBlock | undefined {
  const r = stmt(db, "SELECT * FROM canonical_email_blocks WHERE canonical_email_hash = ?").get(hash) as Row | undefined;
  return r && rowTo(r);
}

export function listCanonicalEmailBlocksPage(db: DB, page: Page): CanonicalEmailBlock[] {
  return rowsPageById(db, "canonical_email_blocks", page).map(rowTo);
}

export function deleteCanonicalEmailBlock(db: DB, id: Id): void {
  stmt(db, "DELETE FROM canonical_email_blocks WHERE id = ?").run(BigInt(id));
}
