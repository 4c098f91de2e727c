import { type DB, type Row, stmt, str, strOrNull, num, numOrNull, json, idListJson } from "../db/db.ts";
import type { Id } from "../lib/ids.ts";

// Media attachment rows. Local uploads have their files under the media store (`file`,
// `small_file`, `thumbnail_file`); remote media are not downloaded: the row points at the
// origin's file (remote_url) and thumbnail (thumbnail_remote_url).

export type MediaType = "image" | "gifv" | "video" | "audio" | "unknown";

/** The `processing` column: an upload is queued (or running) until its files are made. */
export type MediaState = "complete" | "queued" | "failed";
export const STATE_CODES: Record<MediaState, number> = { complete: 0, queued: 1, failed: 2 };
const stateOf = (code: number): MediaState => (code === 1 ? "queued" : code === 2 ? "failed" : "complete");

export interface MediaSize {
  width: number;
  height: number;
}

/**
 * The original of a video, gifv or audio file, as ffprobe reads the stored file (Mastodon's
 * MediaAttachment::Metadata#video_metadata); audio has no width and height.
 */
export interface MediaAvOriginal {
  width?: number;
  height?: number;
  /** "num/den" (avg_frame_rate, reduced), as Mastodon's Rational. */
  frameRate?: string;
  /** Seconds. */
  duration?: number;
  /** Bits per second of the whole file. */
  bitrate?: number;
}

/** `meta` as Mastodon's MediaAttachment entity shows it (entities-core.md); size/aspect are derived. */
export interface MediaMeta {
  original?: MediaSize | MediaAvOriginal;
  small?: MediaSize;
  focus?: { x: number; y: number };
}

export interface MediaAttachment {
  id: Id;
  accountId: Id;
  statusId: Id | null;
  type: MediaType;
  file: string | null;
  contentType: string | null;
  fileSize: number | null;
  /** The preview made from the file (`meta.small`). */
  smallFile: string | null;
  /** A preview the author uploaded; shown instead of smallFile. */
  thumbnailFile: string | null;
  remoteUrl: string | null;
  thumbnailRemoteUrl: string | null;
  description: string | null;
  blurhash: string | null;
  meta: MediaMeta;
  state: MediaState;
  createdAt: number;
  updatedAt: number;
}

export function rowToMedia(r: Row): MediaAttachment {
  return {
    id: str(r.id),
    accountId: str(r.account_id),
    statusId: strOrNull(r.status_id),
    type: r.type as MediaType,
    file: strOrNull(r.file),
    contentType: strOrNull(r.content_type),
    fileSize: numOrNull(r.file_size),
    smallFile: strOrNull(r.small_file),
    thumbnailFile: strOrNull(r.thumbnail_file),
    remoteUrl: strOrNull(r.remote_url),
    thumbnailRemoteUrl: strOrNull(r.thumbnail_remote_url),
    description: strOrNull(r.description),
    blurhash: strOrNull(r.blurhash),
    meta: json<MediaMeta>(r.meta, {}),
    state: stateOf(num(r.processing)),
    createdAt: num(r.created_at),
    updatedAt: num(r.updated_at),
  };
}

export interface NewRemoteMedia {
  id: Id;
  accountId: Id;
  statusId: Id;
  type: MediaType;
  contentType: string | null;
  remoteUrl: string;
  thumbnailRemoteUrl: string | null;
  description: string | null;
  blurhash: string | null;
  meta: MediaMeta;
  createdAt: number;
}

export function insertRemoteMedia(db: DB, m: NewRemoteMedia): void {
  stmt(
    db,
    `INSERT INTO media_attachments (id, account_id, status_id, type, content_type, remote_url, thumbnail_remote_url,
       description, blurhash, meta, created_at, updated_at)
     VALUES (@id, @accountId, @statusId, @type, @contentType, @remoteUrl, @thumbnailRemoteUrl,
       @description, @blurhash, @meta, @createdAt, @createdAt)`,
  ).run({
    id: BigInt(m.id),
    accountId: BigInt(m.accountId),
    statusId: BigInt(m.statusId),
    type: m.type,
    contentType: m.contentType,
    remoteUrl: m.remoteUrl,
    thumbnailRemoteUrl: m.thumbnailRemoteUrl,
    description: m.description,
    blurhash: m.blurhash,
    meta: JSON.stringify(m.meta),
    createdAt: m.createdAt,
  });
}

/**
 * A status's attachments in the author's order: local ones by `position` (the order of
 * `media_ids[]`), remote ones (position NULL) by id, drawn in the order of the Note's list.
 */
export const ATTACHMENT_ORDER = "coalesce(m.position, 0), m.id";

/**
 * The rows of a status's current version: remote ones, and local ones with a position (an
 * edit that removes an upload clears its position and keeps it for the edit history).
 */
export const CURRENT_ATTACHMENT = "(m.position IS NOT NULL OR m.remote_url IS NOT NULL)";

/** The attachments of a page of statuses, one query; each list in the author's order. */
export function findMediaByStatusIds(db: DB, statusIds: Iterable<Id>): Map<Id, MediaAttachment[]> {
  const out = new Map<Id, MediaAttachment[]>();
  const ids = idListJson(new Set(statusIds));
  if (ids === "[]") return out;
  const rows = stmt(
    db,
    `SELECT m.* FROM json_each(?) j CROSS JOIN media_attachments m ON m.status_id = j.value
     WHERE ${CURRENT_ATTACHMENT} ORDER BY ${ATTACHMENT_ORDER}`,
  ).all(ids) as Row[];
  for (const r of rows) {
    const m = rowToMedia(r);
    const list = out.get(m.statusId!);
    if (list) list.push(m);
    else out.set(m.statusId!, [m]);
  }
  return out;
}

/** Attachments by id (edit history keeps the ids of each revision's media), one query. */
export function findMediaByIds(db: DB, ids: Iterable<Id>): Map<Id, MediaAttachment> {
  const out = new Map<Id, MediaAttachment>();
  const list = idListJson(new Set(ids));
  if (list === "[]") return out;
  for (const r of stmt(db, "SELECT * FROM media_attachments WHERE id IN (SELECT value FROM json_each(?))").all(list) as Row[]) {
    const m = rowToMedia(r);
    out.set(m.id, m);
  }
  return out;
}

/** A kept attachment's alt text, focus and blurhash after a remote edit. */
export function updateRemoteMediaDetails(db: DB, id: Id, d: { description: string | null; blurhash: string | null; meta: MediaMeta; at: number }): void {
  // A local copy's preview size (meta.small) stays: the copy is of the same file.
  stmt(
    db,
    `UPDATE media_attachments SET description = @description, blurhash = coalesce(@blurhash, blurhash), updated_at = @at,
       meta = CASE WHEN json_extract(meta, '$.small') IS NULL THEN @meta ELSE json_set(@meta, '$.small', json_extract(meta, '$.small')) END
     WHERE id = @id`,
  ).run({
    id: BigInt(id),
    description: d.description,
    blurhash: d.blurhash,
    meta: JSON.stringify(d.meta),
    at: d.at,
  });
}

/** Detaches a status's attachments (an edit replaced them); the rows stay for the edit history. */
export function detachStatusMedia(db: DB, statusId: Id): void {
  stmt(db, "UPDATE media_attachments SET status_id = NULL WHERE status_id = ?").run(BigInt(statusId));
}

/**
 * Removes the media rows of a remote status that is being deleted, current and earlier
 * revisions'. Local copies of them (remote_media_cache) are left to the cache's pruning,
 * which removes copies nothing shows any more.
 */
export function deleteRemoteStatusMedia(db: DB, statusId: Id): void {
  stmt(
    db,
    `DELETE FROM media_attachments WHERE remote_url IS NOT NULL AND (status_id = @id OR id IN
       (SELECT j.value FROM status_edits e, json_each(e.media_ids) j WHERE e.status_id = @id))`,
  ).run({ id: BigInt(statusId) });
}

/** deleteRemoteStatusMedia for many statuses in one statement (the storage prune's batches). */
export function deleteRemoteStatusesMedia(db: DB, statusIds: Id[]): void {
  stmt(
    db,
    `WITH s(id) AS (SELECT value FROM json_each(@ids))
     DELETE FROM media_attachments WHERE remote_url IS NOT NULL AND (status_id IN (SELECT id FROM s) OR id IN
       (SELECT j.value FROM status_edits e, json_each(e.media_ids) j WHERE e.status_id IN (SELECT id FROM s)))`,
  ).run({ ids: idListJson(statusIds) });
}

/**
 * Reserves the author's unattached uploads for a scheduled post (shown with it, attached when
 * it is published, free again if it is deleted). Returns how many rows were reserved.
 */
export function reserveMediaForScheduled(db: DB, r: { accountId: Id; scheduledStatusId: Id; mediaIds: Id[] }): number {
  return stmt(
    db,
    `UPDATE media_attachments SET scheduled_status_id = @scheduled
     WHERE account_id = @account AND status_id IS NULL AND id IN (SELECT value FROM json_each(@ids))`,
  ).run({ scheduled: BigInt(r.scheduledStatusId), account: BigInt(r.accountId), ids: idListJson(r.mediaIds) }).changes;
}

/** The uploads reserved by a page of scheduled posts, one query, each list in upload order. */
export function findMediaByScheduledIds(db: DB, scheduledIds: Iterable<Id>): Map<Id, MediaAttachment[]> {
  const out = new Map<Id, MediaAttachment[]>();
  const ids = idListJson(new Set(scheduledIds));
  if (ids === "[]") return out;
  const rows = stmt(
    db,
    `SELECT m.* FROM json_each(?) j CROSS JOIN media_attachments m ON m.scheduled_status_id = j.value ORDER BY m.id`,
  ).all(ids) as Row[];
  for (const r of rows) {
    const m = rowToMedia(r);
    const key = str(r.scheduled_status_id);
    const list = out.get(key);
    if (list) list.push(m);
    else out.set(key, [m]);
  }
  return out;
}
