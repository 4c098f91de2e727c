import { type DB, type Row, stmt, str, num, bool } from "../db/db.ts";
import type { Id } from "../lib/ids.ts";

export interface CustomEmoji {
  id: Id;
  shortcode: string;
  domain: string | null;
  uri: string | null;
  /**
   * Path under media/ of the local copy. For local emojis a static PNG sits next to it
   * (see emojiStaticFile), written by services/custom-emojis.ts.
   */
  file: string | null;
  contentType: string | null;
  remoteUrl: string | null;
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
    remoteUrl: (r.remote_url as string | null) ?? null,
    category: (r.category as string | null) ?? null,
    visibleInPicker: bool(r.visible_in_picker),
    disabled: bool(r.disabled),
    createdAt: num(r.created_at),
    updatedAt: num(r.updated_at),
  };
}

/** The non-animated PNG that accompanies a local emoji file ("emojis/1.gif" → "emojis/1_static.png"). */
export function emojiStaticFile(file: string): string {
  return file.replace(/\.[a-z0-9]+$/i, "") + "_static.png";
}

/** Enabled emojis of `domain` (null: local) whose shortcodes are in the list, one query. */
export function findEmojisByShortcodes(db: DB, shortcodes: string[], domain: string | null): CustomEmoji[] {
  const uniq = [...new Set(shortcodes)];
  if (uniq.length === 0) return [];
  const rows = stmt(
    db,
    `SELECT * FROM custom_emojis
     WHERE shortcode IN (SELECT value FROM json_each(@codes)) AND coalesce(lower(domain), '') = coalesce(@domain, '')
       AND disabled = 0
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
    `INSERT INTO custom_emojis (id, shortcode, domain, uri, file, content_type, remote_url, category,
       visible_in_picker, disabled, created_at, updated_at)
     VALUES (@id, @shortcode, @domain, @uri, @file, @contentType, @remoteUrl, @category,
       @visibleInPicker, @disabled, @createdAt, @updatedAt)`,
  ).run({
    ...e,
    id: BigInt(e.id),
    visibleInPicker: e.visibleInPicker ? 1 : 0,
    disabled: e.disabled ? 1 : 0,
  });
}
