import { type DB, type Row, stmt, str, num } from "../db/db.ts";
import type { Id } from "../lib/ids.ts";
import { ofBlockedDomainSql } from "./domain-blocks.ts";
import type { MediaAvOriginal, MediaSize, MediaType } from "./media-attachments.ts";

// The remote media cache (migration 0043): which local copies exist, of what, how big. The
// entity columns that show a copy are written here too, in the same statements' transaction
// as the cache row, so a row and its entity never disagree.

export type CacheKind = "attachment" | "avatar" | "header";

export interface CacheEntry {
  kind: CacheKind;
  ownerId: Id;
  sourceUrl: string;
  files: string[];
  bytes: number;
  cachedAt: number;
}

function rowToEntry(r: Row): CacheEntry {
  return {
    kind: r.kind as CacheKind,
    ownerId: str(r.owner_id),
    sourceUrl: r.source_url as string,
    files: JSON.parse(r.files as string) as string[],
    bytes: num(r.bytes),
    cachedAt: num(r.cached_at),
  };
}

export function insertCacheEntry(db: DB, e: CacheEntry): void {
  stmt(
    db,
    `INSERT OR REPLACE INTO remote_media_cache (kind, owner_id, source_url, files, bytes, cached_at)
     VALUES (@kind, @owner, @source, @files, @bytes, @at)`,
  ).run({ kind: e.kind, owner: BigInt(e.ownerId), source: e.sourceUrl, files: JSON.stringify(e.files), bytes: e.bytes, at: e.cachedAt });
}

export function findCacheEntry(db: DB, kind: CacheKind, ownerId: Id): CacheEntry | undefined {
  const r = stmt(db, "SELECT * FROM remote_media_cache WHERE kind = ? AND owner_id = ?").get(kind, BigInt(ownerId)) as Row | undefined;
  return r ? rowToEntry(r) : undefined;
}

export function deleteCacheEntry(db: DB, kind: CacheKind, ownerId: Id): void {
  stmt(db, "DELETE FROM remote_media_cache WHERE kind = ? AND owner_id = ?").run(kind, BigInt(ownerId));
}

export function cacheTotals(db: DB): { entries: number; bytes: number } {
  const r = stmt(db, "SELECT count(*) AS n, coalesce(sum(bytes), 0) AS b FROM remote_media_cache").get() as Row;
  return { entries: num(r.n), bytes: num(r.b) };
}

/**
 * Whether the entity still shows this copy: its first file is the attachment's `file` (or, for
 * a video's preview-only copy, its `thumbnail_file`), the account's avatar or header file.
 */
const SHOWN = `CASE c.kind
  WHEN 'attachment' THEN EXISTS (SELECT 1 FROM media_attachments m
    WHERE m.id = c.owner_id AND coalesce(m.file, m.thumbnail_file) = json_extract(c.files, '$[0]'))
  WHEN 'avatar' THEN EXISTS (SELECT 1 FROM accounts a WHERE a.id = c.owner_id AND a.avatar_file = json_extract(c.files, '$[0]'))
  ELSE EXISTS (SELECT 1 FROM accounts a WHERE a.id = c.owner_id AND a.header_file = json_extract(c.files, '$[0]')) END`;

/**
 * Copies something local still uses: an attachment of a status that a local account wrote a
 * reply to, favourited, boosted or bookmarked; an avatar or header of an account a local
 * account follows.
 */
const INTERACTED = `CASE c.kind
  WHEN 'attachment' THEN EXISTS (SELECT 1 FROM media_attachments m WHERE m.id = c.owner_id AND m.status_id IS NOT NULL AND (
       EXISTS (SELECT 1 FROM favourites f JOIN accounts l ON l.id = f.account_id AND l.domain IS NULL WHERE f.status_id = m.status_id)
    OR EXISTS (SELECT 1 FROM bookmarks b WHERE b.status_id = m.status_id)
    OR EXISTS (SELECT 1 FROM statuses s JOIN accounts l ON l.id = s.account_id AND l.domain IS NULL
               WHERE s.reblog_of_id = m.status_id OR s.in_reply_to_id = m.status_id)))
  ELSE EXISTS (SELECT 1 FROM follows f JOIN accounts l ON l.id = f.account_id AND l.domain IS NULL WHERE f.target_account_id = c.owner_id) END`;

/** Copies whose entity is gone or shows something else now (a new avatar, a deleted status). */
export function listOrphanEntries(db: DB, limit: number): CacheEntry[] {
  return (stmt(db, `SELECT c.* FROM remote_media_cache c WHERE NOT (${SHOWN}) LIMIT ?`).all(limit) as Row[]).map(rowToEntry);
}

/** Copies made before `before` that nothing local uses, oldest first. */
export function listUnusedEntriesBefore(db: DB, before: number, limit: number): CacheEntry[] {
  return (
    stmt(db, `SELECT c.* FROM remote_media_cache c WHERE c.cached_at < ? AND NOT (${INTERACTED}) ORDER BY c.cached_at, c.owner_id LIMIT ?`).all(
      before,
      limit,
    ) as Row[]
  ).map(rowToEntry);
}

/** Every copy, oldest first, from a position on (keyset: `[cachedAt, ownerId, kind]`). */
export function listEntriesOldestFirst(db: DB, after: { cachedAt: number; ownerId: Id; kind: CacheKind } | null, limit: number): CacheEntry[] {
  const rows = after
    ? stmt(
        db,
        `SELECT * FROM remote_media_cache WHERE (cached_at, owner_id, kind) > (@at, @owner, @kind)
         ORDER BY cached_at, owner_id, kind LIMIT @limit`,
      ).all({ at: after.cachedAt, owner: BigInt(after.ownerId), kind: after.kind, limit })
    : stmt(db, "SELECT * FROM remote_media_cache ORDER BY cached_at, owner_id, kind LIMIT ?").all(limit);
  return (rows as Row[]).map(rowToEntry);
}

export interface CachedAttachment {
  id: Id;
  sourceUrl: string;
  file: string | null;
  smallFile: string | null;
  thumbnailFile: string | null;
  fileSize: number | null;
  blurhash: string | null;
  small: MediaSize | null;
  /**
   * A copied video or audio file: what processing found it to be (a silent video is gifv) and
   * ffprobe's reading of the stored file; both stay true of the origin's file after a prune.
   */
  type?: MediaType;
  original?: MediaAvOriginal;
}

/** Shows a copy of a remote attachment, unless the row changed meanwhile. True when written. */
export function showCachedAttachment(db: DB, c: CachedAttachment): boolean {
  return (
    stmt(
      db,
      `UPDATE media_attachments SET file = @file, small_file = @small, thumbnail_file = @thumb, file_size = @size,
         blurhash = coalesce(blurhash, @blurhash), type = coalesce(@type, type),
         meta = json_set(coalesce(meta, '{}'),
           '$.small', CASE WHEN @smallMeta IS NULL THEN json_extract(coalesce(meta, '{}'), '$.small') ELSE json(@smallMeta) END,
           '$.original', CASE WHEN @original IS NULL THEN json_extract(coalesce(meta, '{}'), '$.original') ELSE json(@original) END)
       WHERE id = @id AND remote_url = @source AND file IS NULL AND thumbnail_file IS NULL`,
    ).run({
      id: BigInt(c.id),
      source: c.sourceUrl,
      file: c.file,
      small: c.smallFile,
      thumb: c.thumbnailFile,
      size: c.fileSize,
      blurhash: c.blurhash,
      smallMeta: c.small ? JSON.stringify(c.small) : null,
      type: c.type ?? null,
      original: c.original ? JSON.stringify(c.original) : null,
    }).changes === 1
  );
}

/** Shows a copy of a remote avatar or header, unless the account moved on. True when written. */
export function showCachedProfileImage(db: DB, c: { kind: "avatar" | "header"; accountId: Id; sourceUrl: string; file: string; contentType: string }): boolean {
  const col = c.kind === "avatar" ? "avatar" : "header";
  return (
    stmt(
      db,
      `UPDATE accounts SET ${col}_file = @file, ${col}_content_type = @type
       WHERE id = @id AND domain IS NOT NULL AND ${col}_remote_url = @source AND ${col}_file IS NULL`,
    ).run({ id: BigInt(c.accountId), source: c.sourceUrl, file: c.file, type: c.contentType }).changes === 1
  );
}

/** Stops showing a copy (the entity shows remote_url again) and forgets it. */
export function dropCacheEntry(db: DB, e: CacheEntry): void {
  const first = e.files[0] ?? null;
  if (e.kind === "attachment") {
    stmt(
      db,
      `UPDATE media_attachments SET file = NULL, small_file = NULL, thumbnail_file = NULL, file_size = NULL,
         meta = json_remove(coalesce(meta, '{}'), '$.small')
       WHERE id = @id AND remote_url IS NOT NULL AND coalesce(file, thumbnail_file) = @first`,
    ).run({ id: BigInt(e.ownerId), first });
  } else {
    const col = e.kind === "avatar" ? "avatar" : "header";
    stmt(db, `UPDATE accounts SET ${col}_file = NULL, ${col}_content_type = NULL WHERE id = @id AND domain IS NOT NULL AND ${col}_file = @first`).run({
      id: BigInt(e.ownerId),
      first,
    });
  }
  deleteCacheEntry(db, e.kind, e.ownerId);
}

/**
 * Whether a status has a remote attachment that could be copied and has no copy now: a photo,
 * anything with a preview, and with `av` (ffmpeg is on) a video, gifv or audio file.
 */
export function hasUncachedRemoteMedia(db: DB, statusId: Id, av: boolean): boolean {
  return (
    stmt(
      db,
      `SELECT 1 FROM media_attachments WHERE status_id = @id AND remote_url IS NOT NULL AND file IS NULL AND thumbnail_file IS NULL
         AND (type = 'image' OR thumbnail_remote_url IS NOT NULL OR (@av AND type IN ('video', 'gifv', 'audio'))) LIMIT 1`,
    ).get({ id: BigInt(statusId), av: av ? 1 : 0 }) !== undefined
  );
}

/** The copies of these statuses' remote attachments. */
export function listEntriesOfStatuses(db: DB, statusIds: Id[]): CacheEntry[] {
  if (statusIds.length === 0) return [];
  return (
    stmt(
      db,
      `SELECT c.* FROM remote_media_cache c JOIN media_attachments m ON c.kind = 'attachment' AND m.id = c.owner_id
       WHERE m.status_id IN (SELECT value FROM json_each(?))`,
    ).all(JSON.stringify(statusIds)) as Row[]
  ).map(rowToEntry);
}

/** The copies of an account's avatar and header. */
export function listEntriesOfAccount(db: DB, accountId: Id): CacheEntry[] {
  return (stmt(db, "SELECT * FROM remote_media_cache WHERE kind IN ('avatar', 'header') AND owner_id = ?").all(BigInt(accountId)) as Row[]).map(rowToEntry);
}

/**
 * Copies of media from accounts of `domain` or its subdomains (attachments of their posts, their
 * avatars and headers), a page at a time: each page is dropped before the next is read.
 */
export function listEntriesOfDomain(db: DB, domain: string, limit: number): CacheEntry[] {
  const ofDomain = ofBlockedDomainSql("a.domain");
  return (
    stmt(
      db,
      `SELECT c.* FROM remote_media_cache c
       WHERE (c.kind = 'attachment' AND EXISTS (SELECT 1 FROM media_attachments m JOIN accounts a ON a.id = m.account_id WHERE m.id = c.owner_id AND ${ofDomain}))
          OR (c.kind IN ('avatar', 'header') AND EXISTS (SELECT 1 FROM accounts a WHERE a.id = c.owner_id AND ${ofDomain}))
       LIMIT @limit`,
    ).all({ d: domain, limit }) as Row[]
  ).map(rowToEntry);
}
