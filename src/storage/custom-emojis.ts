import { type DB, type Row, stmt, str, num, bool } from "../db/db.ts";
import type { Id } from "../lib/ids.ts";

export interface CustomEmoji {
  id: Id;
  shortcode: string;
  domain: string | null;
  uri: string | null;
  /**
   * Path under media/ of the local copy. For local emojis a static PNG sits next to it
   * (media/emoji-images.ts emojiStaticFile).
   */
  file: string | null;
  contentType: string | null;
  /** Bytes of `file` (null before a remote emoji is copied). */
  imageSize: number | null;
  remoteUrl: string | null;
  /** Why a remote image was not copied ('too_large', 'invalid'); null otherwise. */
  fetchError: string | null;
  category: string | null;
  visibleInPicker: boolean;
  disabled: boolean;
  createdAt: number;
  updatedAt: number;
}

function rowToCustomEmoji(r: Row): CustomEmoji {
  return {
    id: str(r.id),
    shortcode: r.shortcode as string,
    domain: (r.domain as string | null) ?? null,
    uri: (r.uri as string | null) ?? null,
    file: (r.file as string | null) ?? null,
    contentType: (r.content_type as string | null) ?? null,
    imageSize: r.image_size === null || r.image_size === undefined ? null : num(r.image_size),
    remoteUrl: (r.remote_url as string | null) ?? null,
    fetchError: (r.fetch_error as string | null) ?? null,
    category: (r.category as string | null) ?? null,
    visibleInPicker: bool(r.visible_in_picker),
    disabled: bool(r.disabled),
    createdAt: num(r.created_at),
    updatedAt: num(r.updated_at),
  };
}


/**
 * Enabled emojis of `domain` (null: local) whose shortcodes are in the list, one query. A
 * remote emoji counts only once its image is copied here (emoji.fetch): one refused or not yet
 * fetched is left out, and its shortcode stays text.
 */
export function findEmojisByShortcodes(db: DB, shortcodes: string[], domain: string | null): CustomEmoji[] {
  const uniq = [...new Set(shortcodes)];
  if (uniq.length === 0) return [];
  const rows = stmt(
    db,
    `SELECT * FROM custom_emojis
     WHERE shortcode IN (SELECT value FROM json_each(@codes)) AND coalesce(lower(domain), '') = coalesce(@domain, '')
       AND disabled = 0 AND (domain IS NULL OR file IS NOT NULL)
     ORDER BY shortcode`,
  ).all({ codes: JSON.stringify(uniq), domain: domain?.toLowerCase() ?? null }) as Row[];
  return rows.map(rowToCustomEmoji);
}

/** The emojis a page names: shortcodes by their domain (null: local), one query per domain; key `${domain ?? ""} ${shortcode}`. */
export function findEmojisByDomain(db: DB, byDomain: Map<string | null, Set<string>>): Map<string, CustomEmoji> {
  const out = new Map<string, CustomEmoji>();
  for (const [domain, codes] of byDomain) {
    for (const e of findEmojisByShortcodes(db, [...codes], domain)) out.set(`${domain ?? ""} ${e.shortcode}`, e);
  }
  return out;
}

/** Local, enabled emojis shown in the picker (GET /api/v1/custom_emojis), by shortcode. */
export function listPickerEmojis(db: DB): CustomEmoji[] {
  return (
    stmt(
      db,
      `SELECT * FROM custom_emojis WHERE domain IS NULL AND disabled = 0 AND visible_in_picker = 1
       ORDER BY shortcode`,
    ).all() as Row[]
  ).map(rowToCustomEmoji);
}

/** Any emoji with this exact shortcode on `domain` (null: local), enabled or not. */
export function findEmojiByShortcode(db: DB, shortcode: string, domain: string | null): CustomEmoji | undefined {
  const r = stmt(db, "SELECT * FROM custom_emojis WHERE shortcode = ? AND coalesce(lower(domain), '') = coalesce(?, '')").get(
    shortcode,
    domain?.toLowerCase() ?? null,
  ) as Row | undefined;
  return r && rowToCustomEmoji(r);
}

export function findEmojiById(db: DB, id: Id): CustomEmoji | undefined {
  const r = stmt(db, "SELECT * FROM custom_emojis WHERE id = ?").get(BigInt(id)) as Row | undefined;
  return r && rowToCustomEmoji(r);
}

export function insertCustomEmoji(db: DB, e: CustomEmoji): void {
  stmt(
    db,
    `INSERT INTO custom_emojis (id, shortcode, domain, uri, file, content_type, image_size, remote_url, fetch_error,
       category, visible_in_picker, disabled, created_at, updated_at)
     VALUES (@id, @shortcode, @domain, @uri, @file, @contentType, @imageSize, @remoteUrl, @fetchError,
       @category, @visibleInPicker, @disabled, @createdAt, @updatedAt)`,
  ).run({
    ...e,
    id: BigInt(e.id),
    visibleInPicker: e.visibleInPicker ? 1 : 0,
    disabled: e.disabled ? 1 : 0,
  });
}

/** Every local emoji (listed, unlisted and disabled), by shortcode: `roost emoji list`. */
export function listLocalEmojis(db: DB): CustomEmoji[] {
  return (stmt(db, "SELECT * FROM custom_emojis WHERE domain IS NULL ORDER BY shortcode").all() as Row[]).map(rowToCustomEmoji);
}

/** A local emoji whose shortcode equals this one but for case (Mastodon's import skips those). */
export function findLocalEmojiIgnoringCase(db: DB, shortcode: string): CustomEmoji | undefined {
  const r = stmt(db, "SELECT * FROM custom_emojis WHERE domain IS NULL AND lower(shortcode) = lower(?) LIMIT 1").get(shortcode) as Row | undefined;
  return r && rowToCustomEmoji(r);
}

export function deleteCustomEmoji(db: DB, id: Id): void {
  stmt(db, "DELETE FROM custom_emojis WHERE id = ?").run(BigInt(id));
}

export function updateLocalEmojiImage(db: DB, id: Id, e: { file: string; contentType: string; imageSize: number; updatedAt: number }): void {
  stmt(
    db,
    `UPDATE custom_emojis SET file = @file, content_type = @contentType, image_size = @imageSize, updated_at = @updatedAt
     WHERE id = @id AND domain IS NULL`,
  ).run({ id: BigInt(id), ...e });
}
