import { type DB, type Row, stmt, str, strOrNull } from "../db/db.ts";
import type { Id } from "../lib/ids.ts";

// Local copies of remote media: files a remote attachment row or a remote account's avatar
// and header point at while the origin's URL is kept beside them. Evicting a copy leaves the
// row pointing at the origin again (what the API shows when nothing is cached).

export interface CachedRemoteFiles {
  /** Attachment or account id. */
  id: Id;
  files: string[];
}

const filesOf = (...names: unknown[]) => names.map(strOrNull).filter((n): n is string => n !== null);

/** Remote attachments with local copies, created before `before` (ms), oldest first. */
export function cachedRemoteAttachments(db: DB, after: Id, before: number, limit: number): CachedRemoteFiles[] {
  const rows = stmt(
    db,
    `SELECT id, file, small_file, thumbnail_file FROM media_attachments
     WHERE id > @after AND remote_url IS NOT NULL AND created_at < @before
       AND (file IS NOT NULL OR small_file IS NOT NULL OR thumbnail_file IS NOT NULL)
     ORDER BY id LIMIT @limit`,
  ).all({ after: BigInt(after), before, limit }) as Row[];
  return rows.map((r) => ({ id: str(r.id), files: filesOf(r.file, r.small_file, r.thumbnail_file) }));
}

/** Remote attachments of these statuses with local copies. */
export function cachedAttachmentsOfStatuses(db: DB, statusIds: Id[]): CachedRemoteFiles[] {
  const rows = stmt(
    db,
    `SELECT id, file, small_file, thumbnail_file FROM media_attachments
     WHERE status_id IN (SELECT value FROM json_each(?)) AND remote_url IS NOT NULL
       AND (file IS NOT NULL OR small_file IS NOT NULL OR thumbnail_file IS NOT NULL)`,
  ).all(JSON.stringify(statusIds)) as Row[];
  return rows.map((r) => ({ id: str(r.id), files: filesOf(r.file, r.small_file, r.thumbnail_file) }));
}

export function forgetAttachmentCopies(db: DB, id: Id): void {
  stmt(db, "UPDATE media_attachments SET file = NULL, small_file = NULL, thumbnail_file = NULL WHERE id = ? AND remote_url IS NOT NULL").run(BigInt(id));
}

/** A remote account's cached avatar and header (those with an origin URL beside them). */
export function cachedAccountImages(db: DB, accountId: Id): CachedRemoteFiles | undefined {
  const r = stmt(
    db,
    `SELECT id, CASE WHEN avatar_remote_url IS NOT NULL THEN avatar_file END AS avatar,
            CASE WHEN header_remote_url IS NOT NULL THEN header_file END AS header
     FROM accounts WHERE id = ? AND domain IS NOT NULL`,
  ).get(BigInt(accountId)) as Row | undefined;
  if (!r) return undefined;
  const files = filesOf(r.avatar, r.header);
  return files.length ? { id: str(r.id), files } : undefined;
}

export function forgetAccountImageCopies(db: DB, accountId: Id): void {
  stmt(
    db,
    `UPDATE accounts SET
       avatar_file = CASE WHEN avatar_remote_url IS NOT NULL THEN NULL ELSE avatar_file END,
       avatar_content_type = CASE WHEN avatar_remote_url IS NOT NULL THEN NULL ELSE avatar_content_type END,
       header_file = CASE WHEN header_remote_url IS NOT NULL THEN NULL ELSE header_file END,
       header_content_type = CASE WHEN header_remote_url IS NOT NULL THEN NULL ELSE header_content_type END
     WHERE id = ? AND domain IS NOT NULL`,
  ).run(BigInt(accountId));
}
