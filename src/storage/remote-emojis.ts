// Remote custom emojis (custom_emojis rows with a domain): the copy of what a peer announced.
import { type DB, type Row, stmt, str, num } from "../db/db.ts";
import type { Id } from "../lib/ids.ts";

export interface RemoteEmojiRow {
  id: Id;
  shortcode: string;
  uri: string | null;
  remoteUrl: string | null;
  /** The local copy, if made. */
  file: string | null;
  updatedAt: number;
}

/** The emojis of `domain` with one of these shortcodes (disabled ones too: they keep their row); one query. */
export function findDomainEmojis(db: DB, domain: string, shortcodes: string[]): Map<string, RemoteEmojiRow> {
  const out = new Map<string, RemoteEmojiRow>();
  if (shortcodes.length === 0) return out;
  const rows = stmt(
    db,
    `SELECT id, shortcode, uri, remote_url, file, updated_at FROM custom_emojis
     WHERE coalesce(lower(domain), '') = @domain AND shortcode IN (SELECT value FROM json_each(@codes))`,
  ).all({ domain: domain.toLowerCase(), codes: JSON.stringify(shortcodes) }) as Row[];
  for (const r of rows) {
    out.set(r.shortcode as string, {
      id: str(r.id),
      shortcode: r.shortcode as string,
      uri: (r.uri as string | null) ?? null,
      remoteUrl: (r.remote_url as string | null) ?? null,
      file: (r.file as string | null) ?? null,
      updatedAt: num(r.updated_at),
    });
  }
  return out;
}

/** Points an emoji at a new image: the local copy (if any) is of the old one, so it is dropped. */
export function updateRemoteEmoji(db: DB, id: Id, e: { uri: string | null; remoteUrl: string; updatedAt: number }): void {
  stmt(
    db,
    `UPDATE custom_emojis SET uri = @uri, remote_url = @remoteUrl, file = NULL, content_type = NULL, image_size = NULL,
       fetch_error = NULL, updated_at = @updatedAt
     WHERE id = @id`,
  ).run({ id: BigInt(id), uri: e.uri, remoteUrl: e.remoteUrl, updatedAt: e.updatedAt });
}

/**
 * Records the local copy of a remote emoji's image, if the row still points at the image that
 * was fetched (the peer may have announced a new one meanwhile); false otherwise.
 */
export function setRemoteEmojiFile(
  db: DB,
  id: Id,
  fetchedUrl: string,
  copy: { file: string; contentType: string; imageSize: number } | { fetchError: string },
): boolean {
  const file = "file" in copy ? copy : { file: null, contentType: null, imageSize: null };
  const r = stmt(
    db,
    `UPDATE custom_emojis SET file = @file, content_type = @contentType, image_size = @imageSize, fetch_error = @fetchError
     WHERE id = @id AND remote_url = @fetchedUrl AND file IS NULL`,
  ).run({ id: BigInt(id), fetchedUrl, ...file, fetchError: "fetchError" in copy ? copy.fetchError : null });
  return r.changes === 1;
}
