// Reads and reviews of trends (migrations/0041_trends.sql). What may be shown: an item a
// moderator approved, or (without required review) one nobody rejected; posts only when they
// are public, without content warning or sensitive media, not replies, by discoverable
// accounts that are neither silenced nor suspended (Mastodon's Trends::Statuses#eligible?);
// links also through their publisher's review.
import { type DB, type Row, stmt, str } from "../db/db.ts";
import type { Id } from "../lib/ids.ts";
import { rowToTag, type TagRow } from "./tag-search.ts";

export type TrendKind = "tag" | "status" | "link";
export type ReviewKind = TrendKind | "publisher";

export interface TrendPage {
  /** Only reviewed-and-approved items (trendsRequireReview), else all not rejected. */
  requireReview: boolean;
  limit: number;
  offset: number;
}

const ELIGIBLE: Record<TrendKind, string> = {
  tag: "EXISTS (SELECT 1 FROM tags x WHERE x.id = t.item_id)",
  status: `EXISTS (SELECT 1 FROM statuses s JOIN accounts a ON a.id = s.account_id WHERE s.id = t.item_id
     AND s.visibility = 'public' AND s.deleted_at IS NULL AND s.reblog_of_id IS NULL AND s.spoiler_text = '' AND s.sensitive = 0
     AND s.in_reply_to_id IS NULL AND s.in_reply_to_uri IS NULL
     AND a.discoverable = 1 AND a.silenced_at IS NULL AND a.suspended_at IS NULL)`,
  link: "EXISTS (SELECT 1 FROM trend_links l WHERE l.id = t.item_id)",
};

/** 1 approved, 0 rejected, NULL not reviewed: the item's own review, else (links) its publisher's. */
const REVIEW = `coalesce(
  (SELECT r.trendable FROM trend_reviews r WHERE r.kind = t.kind AND r.item_id = t.item_id),
  CASE WHEN t.kind = 'link' THEN (SELECT r.trendable FROM trend_links l JOIN trend_publishers p ON p.domain = l.domain
    JOIN trend_reviews r ON r.kind = 'publisher' AND r.item_id = p.id WHERE l.id = t.item_id) END)`;

/** Ids of what trends, highest score first. With `all`, unreviewed and rejected ones too (admins). */
export function listTrendIds(db: DB, kind: TrendKind, page: TrendPage & { all?: boolean }): { id: Id; reviewed: boolean | null }[] {
  const shown = page.all ? "1" : page.requireReview ? `${REVIEW} = 1` : `${REVIEW} IS NOT 0`;
  const rows = stmt(
    db,
    `SELECT t.item_id AS id, ${REVIEW} AS trendable FROM trends t
     WHERE t.kind = @kind AND ${ELIGIBLE[kind]} AND ${shown}
     ORDER BY t.score DESC, t.item_id DESC LIMIT @limit OFFSET @offset`,
  ).all({ kind, limit: page.limit, offset: page.offset }) as Row[];
  return rows.map((r) => ({ id: str(r.id), reviewed: r.trendable === null ? null : Number(r.trendable) === 1 }));
}

/** The item trends now and is shown to the public (as listTrendIds without `all`). */
export function isTrendShown(db: DB, kind: TrendKind, itemId: Id, requireReview: boolean): boolean {
  const shown = requireReview ? `${REVIEW} = 1` : `${REVIEW} IS NOT 0`;
  return stmt(db, `SELECT 1 FROM trends t WHERE t.kind = ? AND t.item_id = ? AND ${ELIGIBLE[kind]} AND ${shown}`).get(kind, BigInt(itemId)) !== undefined;
}

export function reviewOf(db: DB, kind: ReviewKind, itemId: Id): boolean | null {
  const r = stmt(db, "SELECT trendable FROM trend_reviews WHERE kind = ? AND item_id = ?").get(kind, BigInt(itemId)) as Row | undefined;
  return r ? Number(r.trendable) === 1 : null;
}

export function setReview(db: DB, kind: ReviewKind, itemId: Id, trendable: boolean, now: number): void {
  stmt(
    db,
    `INSERT INTO trend_reviews (kind, item_id, trendable, reviewed_at) VALUES (?, ?, ?, ?)
     ON CONFLICT (kind, item_id) DO UPDATE SET trendable = excluded.trendable, reviewed_at = excluded.reviewed_at`,
  ).run(kind, BigInt(itemId), trendable ? 1 : 0, now);
}

export interface TrendLink {
  id: Id;
  url: string;
  domain: string;
  /** The preview card of the page: the card of this URL, else the one posts linking it got. */
  cardId: Id | null;
}

// A card is keyed by the page's canonical URL, a post's link by the URL as posted
// (preview_cards_statuses.url, indexed by migrations/0051_suggestions.sql).
const LINK_COLUMNS = `l.id, l.url, l.domain, coalesce(
  (SELECT c.id FROM preview_cards c WHERE c.url = l.url),
  (SELECT pcs.preview_card_id FROM preview_cards_statuses pcs WHERE pcs.url = l.url ORDER BY pcs.status_id DESC LIMIT 1)) AS card_id`;

const rowToTrendLink = (r: Row): TrendLink => ({
  id: str(r.id),
  url: r.url as string,
  domain: r.domain as string,
  cardId: r.card_id === null ? null : str(r.card_id),
});

export function findTrendLinks(db: DB, ids: Id[]): Map<Id, TrendLink> {
  const rows = stmt(db, `SELECT ${LINK_COLUMNS} FROM trend_links l WHERE l.id IN (SELECT value FROM json_each(?))`).all(JSON.stringify(ids)) as Row[];
  return new Map(rows.map((r) => [str(r.id), rowToTrendLink(r)]));
}

export function findTrendLinkByUrl(db: DB, url: string): TrendLink | undefined {
  const r = stmt(db, `SELECT ${LINK_COLUMNS} FROM trend_links l WHERE l.url = ?`).get(url) as Row | undefined;
  return r && rowToTrendLink(r);
}

/** Daily uses and distinct accounts of items since `since` (UTC midnight, ms), by item then day. */
export function trendDailyUses(db: DB, kind: TrendKind, ids: Id[], since: number): Map<Id, Map<number, { uses: number; accounts: number }>> {
  const rows = stmt(
    db,
    `SELECT item_id, hour - hour % 86400000 AS day, count(*) AS uses, count(DISTINCT account_id) AS accounts FROM trend_uses
     WHERE kind = ? AND item_id IN (SELECT value FROM json_each(?)) AND hour >= ? GROUP BY item_id, day`,
  ).all(kind, JSON.stringify(ids), since) as Row[];
  const out = new Map<Id, Map<number, { uses: number; accounts: number }>>();
  for (const r of rows) {
    const id = str(r.item_id);
    if (!out.has(id)) out.set(id, new Map());
    out.get(id)!.set(Number(r.day), { uses: Number(r.uses), accounts: Number(r.accounts) });
  }
  return out;
}

export interface TrendPublisher {
  id: Id;
  domain: string;
  trendable: boolean | null;
  reviewedAt: number | null;
  requestedReviewAt: number | null;
}

/** Publishers of links that trend now, or with a review (admin list), newest id first. */
export function listTrendPublishers(db: DB, page: { limit: number; offset: number }): TrendPublisher[] {
  const rows = stmt(
    db,
    `SELECT p.id, p.domain, p.requested_review_at, r.trendable, r.reviewed_at FROM trend_publishers p
       LEFT JOIN trend_reviews r ON r.kind = 'publisher' AND r.item_id = p.id
     WHERE r.item_id IS NOT NULL OR EXISTS (SELECT 1 FROM trends t JOIN trend_links l ON l.id = t.item_id WHERE t.kind = 'link' AND l.domain = p.domain)
     ORDER BY p.id DESC LIMIT @limit OFFSET @offset`,
  ).all(page) as Row[];
  return rows.map(rowToPublisher);
}

export function findTrendPublisher(db: DB, id: Id): TrendPublisher | undefined {
  const r = stmt(
    db,
    `SELECT p.id, p.domain, p.requested_review_at, r.trendable, r.reviewed_at FROM trend_publishers p
       LEFT JOIN trend_reviews r ON r.kind = 'publisher' AND r.item_id = p.id WHERE p.id = ?`,
  ).get(BigInt(id)) as Row | undefined;
  return r ? rowToPublisher(r) : undefined;
}

function rowToPublisher(r: Row): TrendPublisher {
  return {
    id: str(r.id),
    domain: r.domain as string,
    trendable: r.trendable === null || r.trendable === undefined ? null : Number(r.trendable) === 1,
    reviewedAt: r.reviewed_at === null || r.reviewed_at === undefined ? null : Number(r.reviewed_at),
    requestedReviewAt: r.requested_review_at === null ? null : Number(r.requested_review_at),
  };
}

/** Tags by id, in the order of `ids`. */
export function findTagsByIds(db: DB, ids: Id[]): TagRow[] {
  const rows = stmt(db, "SELECT id, name, display_name FROM tags WHERE id IN (SELECT value FROM json_each(?))").all(JSON.stringify(ids)) as Row[];
  const byId = new Map(rows.map((r) => [str(r.id), rowToTag(r)]));
  return ids.flatMap((id) => byId.get(id) ?? []);
}
