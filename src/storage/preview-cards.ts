import { type DB, type Row, idListJson, num, numOrNull, stmt, str } from "../db/db.ts";
import type { Id } from "../lib/ids.ts";

// Preview cards: one per page URL, shared by every status linking it (preview_cards_statuses).

export type CardType = "link" | "photo" | "video" | "rich";

export interface PreviewCard {
  id: Id;
  url: string;
  title: string;
  description: string;
  type: CardType;
  authorName: string;
  authorUrl: string;
  providerName: string;
  providerUrl: string;
  /** A sanitised iframe of an allowed provider, or "". */
  html: string;
  embedUrl: string;
  width: number;
  height: number;
  /** Stored name in the media store (a 640x360-area JPEG), or null. */
  imageFile: string | null;
  imageDescription: string;
  blurhash: string | null;
  language: string | null;
  publishedAt: number | null;
  createdAt: number;
  updatedAt: number;
}

function rowToCard(r: Row): PreviewCard {
  return {
    id: str(r.id),
    url: r.url as string,
    title: r.title as string,
    description: r.description as string,
    type: r.type as CardType,
    authorName: r.author_name as string,
    authorUrl: r.author_url as string,
    providerName: r.provider_name as string,
    providerUrl: r.provider_url as string,
    html: r.html as string,
    embedUrl: r.embed_url as string,
    width: num(r.width),
    height: num(r.height),
    imageFile: (r.image_file as string | null) ?? null,
    imageDescription: r.image_description as string,
    blurhash: (r.blurhash as string | null) ?? null,
    language: (r.language as string | null) ?? null,
    publishedAt: numOrNull(r.published_at),
    createdAt: num(r.created_at),
    updatedAt: num(r.updated_at),
  };
}

export function findCardByUrl(db: DB, url: string): PreviewCard | undefined {
  const r = stmt(db, "SELECT * FROM preview_cards WHERE url = ?").get(url) as Row | undefined;
  return r && rowToCard(r);
}

/** Cards by id (a page of trending links). */
export function findCardsByIds(db: DB, ids: Iterable<Id>): Map<Id, PreviewCard> {
  const rows = stmt(db, "SELECT * FROM preview_cards WHERE id IN (SELECT value FROM json_each(?))").all(idListJson(new Set(ids))) as Row[];
  return new Map(rows.map((r) => [str(r.id), rowToCard(r)]));
}

/**
 * Inserts the card for its URL or replaces the one there (same id, so statuses keep it).
 * Returns the stored card and the image file it replaced, if any (to be removed).
 */
export function upsertCard(db: DB, c: Omit<PreviewCard, "createdAt">): { card: PreviewCard; replacedImage: string | null } {
  const prior = findCardByUrl(db, c.url);
  const params = { ...c, id: BigInt(prior?.id ?? c.id) };
  if (prior) {
    stmt(
      db,
      `UPDATE preview_cards SET title = @title, description = @description, type = @type, author_name = @authorName,
         author_url = @authorUrl, provider_name = @providerName, provider_url = @providerUrl, html = @html,
         embed_url = @embedUrl, width = @width, height = @height, image_file = @imageFile,
         image_description = @imageDescription, blurhash = @blurhash, language = @language,
         published_at = @publishedAt, updated_at = @updatedAt
       WHERE id = @id`,
    ).run(params);
  } else {
    stmt(
      db,
      `INSERT INTO preview_cards (id, url, title, description, type, author_name, author_url, provider_name,
         provider_url, html, embed_url, width, height, image_file, image_description, blurhash, language,
         published_at, created_at, updated_at)
       VALUES (@id, @url, @title, @description, @type, @authorName, @authorUrl, @providerName, @providerUrl, @html,
         @embedUrl, @width, @height, @imageFile, @imageDescription, @blurhash, @language, @publishedAt,
         @updatedAt, @updatedAt)`,
    ).run(params);
  }
  const replaced = prior?.imageFile && prior.imageFile !== c.imageFile ? prior.imageFile : null;
  return { card: findCardByUrl(db, c.url)!, replacedImage: replaced };
}

/** Links a card to a status that has none yet; false when it had one already. */
export function attachCard(db: DB, statusId: Id, cardId: Id, url: string): boolean {
  const r = stmt(
    db,
    "INSERT INTO preview_cards_statuses (status_id, preview_card_id, url) VALUES (?, ?, ?) ON CONFLICT (status_id) DO NOTHING",
  ).run(BigInt(statusId), BigInt(cardId), url);
  return r.changes === 1;
}

export function detachCard(db: DB, statusId: Id): void {
  stmt(db, "DELETE FROM preview_cards_statuses WHERE status_id = ?").run(BigInt(statusId));
}

export function statusHasCard(db: DB, statusId: Id): boolean {
  return stmt(db, "SELECT 1 FROM preview_cards_statuses WHERE status_id = ?").get(BigInt(statusId)) !== undefined;
}

/** The cards of a page's statuses, by status id (one query). */
export function findCardsByStatusIds(db: DB, statusIds: Iterable<Id>): Map<Id, PreviewCard> {
  const out = new Map<Id, PreviewCard>();
  const ids = idListJson(new Set(statusIds));
  if (ids === "[]") return out;
  const rows = stmt(
    db,
    `SELECT pcs.status_id AS card_status_id, c.* FROM json_each(?) j
     CROSS JOIN preview_cards_statuses pcs ON pcs.status_id = j.value
     JOIN preview_cards c ON c.id = pcs.preview_card_id`,
  ).all(ids) as Row[];
  for (const r of rows) out.set(str(r.card_status_id), rowToCard(r));
  return out;
}
