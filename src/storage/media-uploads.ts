import { type DB, type Row, stmt, idListJson } from "../db/db.ts";
import type { Id } from "../lib/ids.ts";
import { type MediaAttachment, type MediaMeta, type MediaType, rowToMedia, STATE_CODES } from "./media-attachments.ts";

// Local uploads: a row is created queued when the file arrives, completed (or failed) once the
// worker pool has made its files, attached to a status by posting, and removed when unattached
// for a day (media.cleanup) or deleted by its owner.

export interface NewUpload {
  id: Id;
  accountId: Id;
  type: MediaType;
  contentType: string;
  fileSize: number;
  description: string | null;
  meta: MediaMeta;
  /** A custom preview sent with the file, and its blurhash. */
  thumbnailFile: string | null;
  blurhash: string | null;
  createdAt: number;
}

export function insertUpload(db: DB, m: NewUpload): void {
  stmt(
    db,
    `INSERT INTO media_attachments (id, account_id, type, content_type, file_size, description, meta, thumbnail_file, blurhash,
       processing, created_at, updated_at)
     VALUES (@id, @accountId, @type, @contentType, @fileSize, @description, @meta, @thumbnailFile, @blurhash,
       @processing, @createdAt, @createdAt)`,
  ).run({
    id: BigInt(m.id),
    accountId: BigInt(m.accountId),
    type: m.type,
    contentType: m.contentType,
    fileSize: m.fileSize,
    description: m.description,
    meta: JSON.stringify(m.meta),
    thumbnailFile: m.thumbnailFile,
    blurhash: m.blurhash,
    processing: STATE_CODES.queued,
    createdAt: m.createdAt,
  });
}

export function findMediaById(db: DB, id: Id): MediaAttachment | undefined {
  const r = stmt(db, "SELECT * FROM media_attachments WHERE id = ?").get(BigInt(id)) as Row | undefined;
  return r ? rowToMedia(r) : undefined;
}

export interface ProcessedUpload {
  type: MediaType;
  file: string;
  smallFile: string | null;
  contentType: string;
  fileSize: number;
  blurhash: string | null;
  meta: MediaMeta;
  at: number;
}

/** Records the made files; false when the row is gone or no longer queued (nothing written). */
export function completeUpload(db: DB, id: Id, p: ProcessedUpload): boolean {
  const r = stmt(
    db,
    `UPDATE media_attachments SET type = @type, file = @file, small_file = @smallFile, content_type = @contentType,
       file_size = @fileSize, blurhash = coalesce(blurhash, @blurhash), meta = @meta, processing = @complete, updated_at = @at
     WHERE id = @id AND processing = @queued`,
  ).run({
    id: BigInt(id),
    type: p.type,
    file: p.file,
    smallFile: p.smallFile,
    contentType: p.contentType,
    fileSize: p.fileSize,
    blurhash: p.blurhash,
    meta: JSON.stringify(p.meta),
    complete: STATE_CODES.complete,
    queued: STATE_CODES.queued,
    at: p.at,
  });
  return r.changes === 1;
}

export function failUpload(db: DB, id: Id, at: number): void {
  stmt(db, "UPDATE media_attachments SET processing = @failed, updated_at = @at WHERE id = @id AND processing = @queued").run({
    id: BigInt(id),
    failed: STATE_CODES.failed,
    queued: STATE_CODES.queued,
    at,
  });
}

/** Alt text, focus and custom preview of an upload (PUT /api/v1/media/:id, media_attributes[]). */
export function updateUploadDetails(
  db: DB,
  id: Id,
  d: { description: string | null; meta: MediaMeta; thumbnailFile: string | null; blurhash: string | null; at: number },
): void {
  stmt(
    db,
    `UPDATE media_attachments SET description = @description, meta = @meta, thumbnail_file = @thumbnailFile,
       blurhash = @blurhash, updated_at = @at WHERE id = @id`,
  ).run({
    id: BigInt(id),
    description: d.description,
    meta: JSON.stringify(d.meta),
    thumbnailFile: d.thumbnailFile,
    blurhash: d.blurhash,
    at: d.at,
  });
}

/** Alt text and focus of an attachment changed by a status edit (`media_attributes[]`). */
export function updateMediaDescription(db: DB, id: Id, d: { description: string | null; meta: MediaMeta; at: number }): void {
  stmt(db, "UPDATE media_attachments SET description = @description, meta = @meta, updated_at = @at WHERE id = @id").run({
    id: BigInt(id),
    description: d.description,
    meta: JSON.stringify(d.meta),
    at: d.at,
  });
}

export function deleteMediaRow(db: DB, id: Id): void {
  stmt(db, "DELETE FROM media_attachments WHERE id = ?").run(BigInt(id));
}

/**
 * The account's local uploads among `ids` that a status may take: unattached ones, and those
 * already attached to `statusId` (an edit keeps them).
 */
export function findAttachableMedia(db: DB, accountId: Id, ids: Id[], statusId: Id | null): MediaAttachment[] {
  const rows = stmt(
    db,
    `SELECT m.* FROM media_attachments m WHERE m.id IN (SELECT value FROM json_each(@ids))
       AND m.account_id = @accountId AND m.remote_url IS NULL
       AND (m.status_id IS NULL OR m.status_id = @statusId)`,
  ).all({ ids: idListJson(ids), accountId: BigInt(accountId), statusId: statusId === null ? null : BigInt(statusId) }) as Row[];
  return rows.map(rowToMedia);
}

/**
 * Attaches uploads to a status in the given order. Returns how many rows took it: fewer than
 * `ids.length` means another post took one meanwhile (the caller rolls back).
 */
export function attachMedia(db: DB, statusId: Id, ids: Id[]): number {
  const update = stmt(
    db,
    `UPDATE media_attachments SET status_id = @statusId, position = @position
     WHERE id = @id AND remote_url IS NULL AND (status_id IS NULL OR status_id = @statusId)`,
  );
  let n = 0;
  ids.forEach((id, position) => {
    n += update.run({ id: BigInt(id), statusId: BigInt(statusId), position }).changes;
  });
  return n;
}

/**
 * Takes a status's local uploads other than `keep` out of its current version (an edit removed
 * them). They stay the status's, as in Mastodon, for its edit history to show; they go with it.
 */
export function retireMediaExcept(db: DB, statusId: Id, keep: Id[]): void {
  stmt(
    db,
    `UPDATE media_attachments SET position = NULL
     WHERE status_id = @statusId AND remote_url IS NULL AND id NOT IN (SELECT value FROM json_each(@keep))`,
  ).run({ statusId: BigInt(statusId), keep: idListJson(keep) });
}

/** Removes a status's local uploads (DELETE /api/v1/statuses/:id with delete_media); returns them. */
export function deleteStatusUploads(db: DB, statusId: Id): MediaAttachment[] {
  const rows = stmt(db, "DELETE FROM media_attachments WHERE status_id = ? AND remote_url IS NULL RETURNING *").all(BigInt(statusId)) as Row[];
  return rows.map(rowToMedia);
}

/**
 * Uploads created before `before` that no status holds (never posted, or their status was
 * deleted): what the periodic clean-up removes, oldest first.
 */
export function listExpiredUploads(db: DB, before: number, limit: number): MediaAttachment[] {
  const rows = stmt(
    db,
    `SELECT * FROM media_attachments WHERE status_id IS NULL AND remote_url IS NULL AND created_at < @before
     ORDER BY created_at LIMIT @limit`,
  ).all({ before, limit }) as Row[];
  return rows.map(rowToMedia);
}
