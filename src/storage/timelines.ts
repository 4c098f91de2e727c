import { type DB, type Row, stmt, str, idListJson } from "../db/db.ts";
import type { Id } from "../lib/ids.ts";

// Timeline reads. Each is one keyset query over an index whose order is the status id
// (home_feeds / list_feeds primary keys, statuses partial indexes, statuses_tags, statuses_account),
// never OFFSET; read-time filters are correlated NOT EXISTS probes, so a mute or block applies
// at once and a filtered row simply lets the scan continue.
//
// Parameters are written `+@name`. SQLite re-plans a statement each time it is bound when a
// bare parameter sets a LIMIT or meets an indexed column that ANALYZE has sampled
// (sqlite_stat4), and re-planning costs more than running these queries. The unary plus
// hides the value from the planner; the index is used just the same.

export interface Page {
  limit: number;
  maxId?: Id;
  sinceId?: Id;
  minId?: Id;
}

const MAX_BIGINT = 9223372036854775807n;

/**
 * Bounds of a page: strictly below max_id, strictly above min_id (or since_id). With min_id
 * the scan runs upwards from the cursor (the page right after it) and is reversed afterwards.
 */
export function keyset(page: Page): { upper: bigint; lower: bigint; ascending: boolean; limit: number } {
  return {
    upper: page.maxId ? BigInt(page.maxId) : MAX_BIGINT,
    lower: BigInt(page.minId ?? page.sinceId ?? "0"),
    ascending: page.minId !== undefined,
    limit: page.limit,
  };
}

/**
 * What the viewer hides, read once per page: accounts blocked either way or muted (active
 * mutes only) and blocked domains. Most viewers hide nothing, and then the page query carries
 * no filter at all; otherwise each row costs one lookup in a per-query ephemeral set.
 */
export interface ViewerHides {
  accounts: string | null;
  domains: string | null;
}

export function viewerHides(db: DB, viewerId: Id | null, now: number): ViewerHides {
  if (!viewerId) return { accounts: null, domains: null };
  const r = stmt(
    db,
    `SELECT
       (SELECT json_group_array(id) FROM (
          SELECT target_account_id AS id FROM blocks WHERE account_id = +@viewer
          UNION SELECT account_id FROM blocks WHERE target_account_id = +@viewer
          UNION SELECT target_account_id FROM mutes WHERE account_id = +@viewer AND (expires_at IS NULL OR expires_at > +@now))) AS accounts,
       (SELECT json_group_array(domain) FROM account_domain_blocks WHERE account_id = +@viewer) AS domains`,
  ).get({ viewer: BigInt(viewerId), now }) as Row;
  const nonEmpty = (v: unknown) => (typeof v === "string" && v !== "[]" ? v : null);
  return { accounts: nonEmpty(r.accounts), domains: nonEmpty(r.domains) };
}

/** SQL excluding rows whose account expression `x` the viewer hides (empty when nothing is hidden). */
function hiddenFilter(h: ViewerHides, x: string, orNull = false): string {
  const parts: string[] = [];
  if (h.accounts) parts.push(`${x} NOT IN (SELECT value FROM json_each(@hiddenAccounts))`);
  if (h.domains)
    parts.push(`NOT EXISTS (SELECT 1 FROM accounts ha WHERE ha.id = ${x} AND ha.domain IS NOT NULL
                AND lower(ha.domain) IN (SELECT value FROM json_each(@hiddenDomains)))`);
  if (!parts.length) return "";
  return orNull ? `AND (${x} IS NULL OR (${parts.join(" AND ")}))` : `AND ${parts.join(" AND ")}`;
}

function hiddenParams(h: ViewerHides): Record<string, unknown> {
  const p: Record<string, unknown> = {};
  if (h.accounts) p.hiddenAccounts = h.accounts;
  if (h.domains) p.hiddenDomains = h.domains;
  return p;
}

/** Entries (s) and, for boosts, their originals (o) that the viewer may see. */
function viewerFilter(h: ViewerHides): string {
  return `${hiddenFilter(h, "s.account_id")} ${hiddenFilter(h, "o.account_id", true)}`;
}

/**
 * Runs a page query selecting `s.id`: pages return ids, which services/timelines.ts turns
 * into statuses through the status row cache (storage/status-cache.ts).
 */
function run(db: DB, sql: string, params: Record<string, unknown>, ascending: boolean): Id[] {
  const ids = (stmt(db, sql).pluck().all(params) as bigint[]).map(str);
  return ascending ? ids.reverse() : ids;
}

/** A page of a materialised feed (home_feeds by account, list_feeds by list). */
function feedPage(db: DB, table: "home_feeds" | "list_feeds", key: "account_id" | "list_id", owner: Id, viewerId: Id, page: Page, now: number): Id[] {
  const k = keyset(page);
  if (k.limit <= 0) return [];
  const hides = viewerHides(db, viewerId, now);
  const sql = `SELECT s.id FROM ${table} h
      JOIN statuses s ON s.id = h.status_id
      LEFT JOIN statuses o ON o.id = s.reblog_of_id
    WHERE h.${key} = +@owner AND h.status_id < +@upper AND h.status_id > +@lower
      AND s.deleted_at IS NULL AND (s.reblog_of_id IS NULL OR o.deleted_at IS NULL)
      ${viewerFilter(hides)}
    ORDER BY h.status_id ${k.ascending ? "ASC" : "DESC"} LIMIT +@limit`;
  return run(db, sql, { owner: BigInt(owner), upper: k.upper, lower: k.lower, limit: k.limit, ...hiddenParams(hides) }, k.ascending);
}

export function homeTimelinePage(db: DB, viewerId: Id, page: Page, now: number): Id[] {
  return feedPage(db, "home_feeds", "account_id", viewerId, viewerId, page, now);
}

export function listTimelinePage(db: DB, listId: Id, viewerId: Id, page: Page, now: number): Id[] {
  return feedPage(db, "list_feeds", "list_id", listId, viewerId, page, now);
}

export interface PublicFilter {
  local?: boolean;
  remote?: boolean;
  onlyMedia?: boolean;
}

const HAS_MEDIA = "AND EXISTS (SELECT 1 FROM media_attachments ma WHERE ma.status_id = s.id)";
/**
 * Authors neither suspended nor silenced (public and tag timelines). A scalar subquery, not
 * EXISTS: for EXISTS SQLite builds a Bloom filter over every listed account before each
 * page, a cost that grows with the number of known accounts.
 */
const LISTED_AUTHOR = `AND (SELECT pa.suspended_at IS NULL AND pa.silenced_at IS NULL FROM accounts pa WHERE pa.id = s.account_id)`;

function originFilter(f: PublicFilter): string {
  const localOnly = f.local && !f.remote;
  const remoteOnly = f.remote && !f.local;
  return localOnly ? "AND s.local = 1" : remoteOnly ? "AND s.local = 0" : "";
}

/**
 * The public timeline: public posts, no boosts, no replies to other accounts. The WHERE
 * clause repeats the partial indexes' conditions (statuses_public / statuses_local_public) so
 * SQLite scans them by id.
 */
export function publicTimelinePage(db: DB, viewerId: Id | null, f: PublicFilter, page: Page, now: number): Id[] {
  const k = keyset(page);
  if (k.limit <= 0) return [];
  const hides = viewerHides(db, viewerId, now);
  // The local timeline walks its own partial index (SQLite would otherwise pick statuses_public).
  const index = f.local && !f.remote ? "INDEXED BY statuses_local_public" : "";
  const sql = `SELECT s.id FROM statuses s ${index}
    WHERE s.visibility = 'public' AND s.reblog_of_id IS NULL AND s.deleted_at IS NULL
      ${originFilter(f)}
      AND s.id < +@upper AND s.id > +@lower
      AND (s.in_reply_to_id IS NULL OR s.in_reply_to_account_id = s.account_id)
      ${f.onlyMedia ? HAS_MEDIA : ""}
      ${LISTED_AUTHOR}
      ${hiddenFilter(hides, "s.account_id")}
    ORDER BY s.id ${k.ascending ? "ASC" : "DESC"} LIMIT +@limit`;
  const params: Record<string, unknown> = { upper: k.upper, lower: k.lower, limit: k.limit, ...hiddenParams(hides) };
  return run(db, sql, params, k.ascending);
}

/** Tag ids by normalised name; unknown names are absent. */
export function findTagIdsByNames(db: DB, names: string[]): Map<string, Id> {
  const rows = stmt(db, "SELECT id, name FROM tags WHERE name IN (SELECT value FROM json_each(?))").all(JSON.stringify(names)) as Row[];
  return new Map(rows.map((r) => [r.name as string, str(r.id)]));
}

export interface TagFilter extends PublicFilter {
  /** Every one of these tags must be present too. */
  allTagIds: Id[];
  /** None of these tags may be present. */
  noneTagIds: Id[];
}

/**
 * One tag's public posts (replies included), newest first by the statuses_tags primary key
 * (tag_id, status_id). The caller merges the pages of the `any` tags.
 */
export function tagTimelinePage(db: DB, tagId: Id, hides: ViewerHides, f: TagFilter, page: Page): Id[] {
  const k = keyset(page);
  if (k.limit <= 0) return [];
  const sql = `SELECT s.id FROM statuses_tags st JOIN statuses s ON s.id = st.status_id
    WHERE st.tag_id = +@tag AND st.status_id < +@upper AND st.status_id > +@lower
      AND s.visibility = 'public' AND s.reblog_of_id IS NULL AND s.deleted_at IS NULL
      ${originFilter(f)}
      ${f.onlyMedia ? HAS_MEDIA : ""}
      ${f.allTagIds.length ? `AND (SELECT count(*) FROM statuses_tags x WHERE x.status_id = s.id
            AND x.tag_id IN (SELECT value FROM json_each(@all))) = +@allCount` : ""}
      ${f.noneTagIds.length ? `AND NOT EXISTS (SELECT 1 FROM statuses_tags x WHERE x.status_id = s.id
            AND x.tag_id IN (SELECT value FROM json_each(@none)))` : ""}
      ${LISTED_AUTHOR}
      ${hiddenFilter(hides, "s.account_id")}
    ORDER BY st.status_id ${k.ascending ? "ASC" : "DESC"} LIMIT +@limit`;
  const params: Record<string, unknown> = { tag: BigInt(tagId), upper: k.upper, lower: k.lower, limit: k.limit, ...hiddenParams(hides) };
  if (f.allTagIds.length) Object.assign(params, { all: idListJson(f.allTagIds), allCount: new Set(f.allTagIds).size });
  if (f.noneTagIds.length) params.none = idListJson(f.noneTagIds);
  return run(db, sql, params, k.ascending);
}

/**
 * Public posts that carry a preview card (GET /api/v1/timelines/link), replies included, by
 * discoverable authors neither suspended nor silenced (Mastodon's LinkFeed). Newest first by
 * the preview_cards_statuses_card index: (preview_card_id, status_id), status_id being its rowid.
 */
export function linkTimelinePage(db: DB, cardId: Id, hides: ViewerHides, page: Page): Id[] {
  const k = keyset(page);
  if (k.limit <= 0) return [];
  const sql = `SELECT s.id FROM preview_cards_statuses pcs JOIN statuses s ON s.id = pcs.status_id
    WHERE pcs.preview_card_id = +@card AND pcs.status_id < +@upper AND pcs.status_id > +@lower
      AND s.visibility = 'public' AND s.reblog_of_id IS NULL AND s.deleted_at IS NULL
      AND (SELECT pa.discoverable = 1 AND pa.suspended_at IS NULL AND pa.silenced_at IS NULL FROM accounts pa WHERE pa.id = s.account_id)
      ${hiddenFilter(hides, "s.account_id")}
    ORDER BY pcs.status_id ${k.ascending ? "ASC" : "DESC"} LIMIT +@limit`;
  return run(db, sql, { card: BigInt(cardId), upper: k.upper, lower: k.lower, limit: k.limit, ...hiddenParams(hides) }, k.ascending);
}

export interface AccountStatusesFilter {
  onlyMedia?: boolean;
  excludeReplies?: boolean;
  excludeReblogs?: boolean;
  excludeDirect?: boolean;
  taggedId?: Id;
  pinned?: boolean;
}

/**
 * Visibility of an account's posts for a viewer (Mastodon's AccountStatusesFilter): the owner
 * sees everything; others see public and unlisted, private when they follow, and private or
 * direct posts that mention them.
 */
function visibleTo(relation: "owner" | "follower" | "other" | "anonymous"): string {
  switch (relation) {
    case "owner":
      return "";
    case "anonymous":
      return "AND s.visibility IN ('public', 'unlisted')";
    case "follower":
      return `AND (s.visibility IN ('public', 'unlisted', 'private')
        OR EXISTS (SELECT 1 FROM mentions vm WHERE vm.status_id = s.id AND vm.account_id = +@viewer))`;
    case "other":
      return `AND (s.visibility IN ('public', 'unlisted')
        OR EXISTS (SELECT 1 FROM mentions vm WHERE vm.status_id = s.id AND vm.account_id = +@viewer))`;
  }
}

export function accountStatusesPage(
  db: DB,
  accountId: Id,
  viewerId: Id | null,
  relation: "owner" | "follower" | "other" | "anonymous",
  f: AccountStatusesFilter,
  page: Page,
  now: number,
): Id[] {
  const k = keyset(page);
  if (k.limit <= 0) return [];
  // Boosts of posts by accounts the viewer hides are dropped (not the owner's own view).
  const hides = viewerHides(db, relation === "owner" ? null : viewerId, now);
  const filters = `
      AND s.deleted_at IS NULL AND (s.reblog_of_id IS NULL OR o.deleted_at IS NULL)
      ${visibleTo(relation)}
      ${f.excludeReplies ? "AND (s.in_reply_to_id IS NULL OR s.in_reply_to_account_id = s.account_id)" : ""}
      ${f.excludeReblogs ? "AND s.reblog_of_id IS NULL" : ""}
      ${f.excludeDirect ? "AND s.visibility <> 'direct'" : ""}
      ${f.onlyMedia ? HAS_MEDIA : ""}
      ${f.taggedId ? "AND EXISTS (SELECT 1 FROM statuses_tags tg WHERE tg.status_id = s.id AND tg.tag_id = +@tagged)" : ""}
      ${hiddenFilter(hides, "o.account_id", true)}`;
  // Pinned posts are few (Mastodon allows 5): listed in pin order, newest pin first.
  const sql = f.pinned
    ? `SELECT s.id FROM status_pins p JOIN statuses s ON s.id = p.status_id LEFT JOIN statuses o ON o.id = s.reblog_of_id
       WHERE p.account_id = +@account AND s.account_id = +@account AND s.id < +@upper AND s.id > +@lower ${filters}
       ORDER BY p.id DESC LIMIT +@limit`
    : `SELECT s.id FROM statuses s LEFT JOIN statuses o ON o.id = s.reblog_of_id
       WHERE s.account_id = +@account AND s.id < +@upper AND s.id > +@lower ${filters}
       ORDER BY s.id ${k.ascending ? "ASC" : "DESC"} LIMIT +@limit`;
  const params: Record<string, unknown> = { account: BigInt(accountId), upper: k.upper, lower: k.lower, limit: k.limit, ...hiddenParams(hides) };
  if (viewerId && (relation === "follower" || relation === "other")) params.viewer = BigInt(viewerId);
  if (f.taggedId) params.tagged = BigInt(f.taggedId);
  return run(db, sql, params, k.ascending && !f.pinned);
}
