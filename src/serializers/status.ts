// https://docs.joinmastodon.org/entities/Status/ (entities-core.md "Status").
import { domainToUnicode } from "node:url";
import type { App } from "../app.ts";
import type { Id } from "../lib/ids.ts";
import { tagUrl } from "../lib/urls.ts";
import { isoTime } from "../lib/iso-time.ts";
import type { MentionedAccount } from "../storage/status-links.ts";
import { STATUS_ROWS_CACHE } from "../storage/status-cache.ts";
import { hiddenOnPage, readStatusPage, readViewerParts, type StatusPage, statusShortcodes } from "../storage/status-page.ts";
import type { FilterContext } from "../storage/filters.ts";
import { findRowCache, MAX_CACHED_CHARS, type RowCacheSpec } from "../storage/row-cache.ts";
import type { Status } from "../storage/statuses.ts";
import { type EmbeddedAccount, embeddedAccounts } from "./account.ts";
import { type ApiCustomEmoji, toApiCustomEmojiMap } from "./custom-emoji.ts";
import { toApiFilterResult } from "./filter.ts";
import { toApiMediaAttachment } from "./media-attachment.ts";
import { type ApiPoll, toApiPoll } from "./poll.ts";
import { toApiPreviewCard } from "./preview-card.ts";

export type ApiStatus = Record<string, unknown> & { id: string };

export interface StatusSerializeOptions {
  /** The DELETE response: `text` (the source, for redrafting) instead of `content`. */
  source?: boolean;
}

export interface ApiMention {
  id: string;
  username: string;
  url: string;
  acct: string;
}

/** A page's reads (storage/status-page.ts), with its emojis as entities. */
type Batch = Omit<StatusPage<EmbeddedAccount>, "emojis"> & { emojis: Map<string, ApiCustomEmoji> };

const iso = isoTime;
const acctOf = (a: MentionedAccount) => (a.domain ? `${a.username}@${domainToUnicode(a.domain) || a.domain}` : a.username);

const batchOf = (app: App, page: StatusPage<EmbeddedAccount>): Batch => ({ ...page, emojis: toApiCustomEmojiMap(app, page.emojis) });

/**
 * The fields every viewer sees alike, except `mentions` (they show other accounts' rows),
 * `reblog`, `account` and `poll` (serializers/poll.ts): what the JSON cache below keeps per status.
 */
function sharedFields(app: App, s: Status, b: Batch, opts: StatusSerializeOptions): ApiStatus {
  const out: ApiStatus = {
    id: s.id,
    created_at: iso(s.createdAt),
    in_reply_to_id: s.inReplyToId,
    in_reply_to_account_id: s.inReplyToAccountId,
    sensitive: s.sensitive,
    spoiler_text: s.spoilerText,
    // A limited remote post is stored as direct (its access rules) and shown as private (AP §4.3).
    visibility: s.limited ? "private" : s.visibility,
    language: s.language,
    uri: s.uri,
    // A remote post without a web URL links to its id (AP §4.2).
    url: s.url ?? (s.local ? null : s.uri),
    replies_count: s.repliesCount,
    // The origin's own counts of a remote post count when larger (Mastodon's StatusStat).
    reblogs_count: Math.max(s.reblogsCount, s.untrustedReblogsCount ?? 0),
    favourites_count: Math.max(s.favouritesCount, s.untrustedFavouritesCount ?? 0),
    edited_at: s.editedAt === null ? null : iso(s.editedAt),
  };
  if (opts.source) out.text = s.text;
  else out.content = s.reblogOfId ? "" : s.content;
  out.media_attachments = (b.media.get(s.id) ?? []).map((m) => toApiMediaAttachment(app, m));
  out.tags = (b.tags.get(s.id) ?? []).map((name) => ({ name, url: tagUrl(app.baseUrl, name) }));
  out.emojis = emojisOf(s, b);
  const card = b.cards.get(s.id);
  out.card = card ? toApiPreviewCard(app, card) : null;
  return out;
}

/** `poll`, for each reader: counts, `expired` and the viewer's votes are never cached as text. */
function pollOf(app: App, s: Status, b: Batch, viewerId: Id | null): ApiPoll | null {
  const poll = s.pollId && !s.reblogOfId ? b.polls.get(s.pollId) : undefined;
  if (!poll) return null;
  const domain = b.authors.get(s.accountId)?.domain ?? null;
  const viewer = viewerId && b.ownChoices ? { id: viewerId, choices: b.ownChoices.get(poll.id) ?? [] } : null;
  return toApiPoll(app, poll, viewer, (code) => b.emojis.get(`${domain ?? ""} ${code}`));
}

/** The viewer's own fields: flags, `filtered`, and the posting app (shown to the author only). */
function viewerFields(s: Status, b: Batch, viewerId: Id | null): Record<string, unknown> | null {
  if (!b.flags) return null;
  // Viewer flags of a boost row describe the boosted post (Mastodon's `status.proper`).
  const proper = s.reblogOfId ? (b.originals.get(s.reblogOfId) ?? s) : s;
  const out: Record<string, unknown> = {
    favourited: b.flags.favourited.has(proper.id),
    reblogged: b.flags.reblogged.has(proper.id),
    muted: proper.conversationId !== null && b.flags.mutedConversations.has(proper.conversationId),
    bookmarked: b.flags.bookmarked.has(proper.id),
  };
  // Only the author sees `pinned`, and only on statuses that can be pinned.
  if (viewerId === s.accountId && !s.reblogOfId && s.visibility !== "direct") out.pinned = b.flags.pinned.has(s.id);
  out.filtered = (b.filtered.get(s.id) ?? []).map(toApiFilterResult);
  // Simplified from Mastodon: the posting app is shown to the author only.
  if (viewerId === s.accountId) out.application = s.applicationId ? (b.apps.get(s.applicationId) ?? null) : null;
  return out;
}

function mentionsOf(s: Status, b: Batch): ApiMention[] {
  return (b.mentions.get(s.id) ?? []).map((a): ApiMention => ({ id: a.id, username: a.username, url: a.url ?? a.uri, acct: acctOf(a) }));
}

/**
 * Mastodon's StatusSerializer#sensitive: a sensitized author's posts are sensitive to everyone
 * but the author. Not part of the shared (cached) fields, which do not depend on the author.
 */
const sensitizedFor = (s: Status, b: Batch, viewerId: Id | null) => !s.sensitive && viewerId !== s.accountId && b.authors.get(s.accountId)?.sensitized === true;

function render(app: App, s: Status, b: Batch, viewerId: Id | null, opts: StatusSerializeOptions): ApiStatus {
  const out = sharedFields(app, s, b, opts);
  if (sensitizedFor(s, b, viewerId)) out.sensitive = true;
  out.poll = pollOf(app, s, b, viewerId);
  const own = viewerFields(s, b, viewerId);
  if (own) Object.assign(out, own);
  out.mentions = mentionsOf(s, b);
  const original = s.reblogOfId ? b.originals.get(s.reblogOfId) : undefined;
  out.reblog = original ? render(app, original, b, viewerId, opts) : null;
  out.account = b.authors.get(s.accountId)?.json ?? null;
  return out;
}

// Pages written straight to JSON text. A timeline page is mostly the same statuses and
// accounts again and again, and JSON.stringify of its ~30 KB is the largest single cost of
// serving it; so the text of the shared fields is kept per status and that of an embedded
// account per rendering, and a page is assembled from them. The same functions as `render`
// build every part, so both forms carry the same fields and values.

/**
 * The shared fields' JSON text (without the closing brace) by status id. An entry serves only
 * the very Status object it was built from, and is only built from the object the status row
 * cache holds (which that cache replaces when the row changes): a caller's stale row is never
 * cached. The other rows the text shows are watched here.
 */
export const STATUS_JSON_CACHE: RowCacheSpec = {
  name: "status-json",
  max: 5_000,
  watches: [
    ["statuses", "id"],
    ["media_attachments", "status_id"],
    ["statuses_tags", "status_id"],
    ["custom_emojis", null],
    ["preview_cards_statuses", "status_id"],
    ["preview_cards", null],
  ],
};

interface SharedText {
  row: Status;
  text: string;
}

function sharedText(app: App, s: Status, b: Batch): string {
  const cache = findRowCache<SharedText>(app, STATUS_JSON_CACHE);
  const hit = cache?.get(s.id);
  if (hit && hit.row === s) return hit.text;
  const json = JSON.stringify(sharedFields(app, s, b, {}));
  const text = json.slice(0, -1);
  if (cache && text.length <= MAX_CACHED_CHARS && findRowCache<Status>(app, STATUS_ROWS_CACHE)?.get(s.id) === s) cache.set(s.id, { row: s, text });
  return text;
}

// Cached embedded accounts are shared, frozen and replaced when they change: their text is kept beside them.
const accountTexts = new WeakMap<object, string>();

/** An embedded account's JSON text, kept beside its cached rendering. */
export function accountText(a: EmbeddedAccount | undefined): string {
  if (!a) return "null";
  let text = accountTexts.get(a.json);
  if (text === undefined) accountTexts.set(a.json, (text = JSON.stringify(a.json)));
  return text;
}

/** What of a status's text depends on the viewer (renderText builds the rest from shared rows). */
interface ViewerPieces {
  sensitized: boolean;
  poll: string;
  own: string;
  reblog: ViewerPieces | null;
}

function viewerPieces(app: App, s: Status, b: Batch, viewerId: Id | null): ViewerPieces {
  const own = viewerFields(s, b, viewerId);
  const original = s.reblogOfId ? b.originals.get(s.reblogOfId) : undefined;
  return {
    sensitized: sensitizedFor(s, b, viewerId),
    poll: s.pollId ? JSON.stringify(pollOf(app, s, b, viewerId)) : "null",
    own: own ? "," + JSON.stringify(own).slice(1, -1) : "",
    reblog: original ? viewerPieces(app, original, b, viewerId) : null,
  };
}

function renderText(app: App, s: Status, b: Batch, viewerId: Id | null, pieces = viewerPieces(app, s, b, viewerId)): string {
  let out = sharedText(app, s, b);
  // The field follows ids and times only, so its first occurrence is the field itself.
  if (pieces.sensitized) out = out.replace(`,"sensitive":false,`, `,"sensitive":true,`);
  out += `,"poll":${pieces.poll}`;
  out += pieces.own;
  out += `,"mentions":${JSON.stringify(mentionsOf(s, b))}`;
  const original = s.reblogOfId ? b.originals.get(s.reblogOfId) : undefined;
  out += `,"reblog":${original && pieces.reblog ? renderText(app, original, b, viewerId, pieces.reblog) : "null"}`;
  return out + `,"account":${accountText(b.authors.get(s.accountId))}}`;
}

function emojisOf(s: Status, b: Batch): ApiCustomEmoji[] {
  const codes = statusShortcodes(s);
  if (codes.length === 0) return [];
  const domain = b.authors.get(s.accountId)?.domain ?? null;
  const out: ApiCustomEmoji[] = [];
  const seen = new Set<string>();
  for (const code of codes) {
    if (seen.has(code)) continue;
    const e = b.emojis.get(`${domain ?? ""} ${code}`);
    if (e) {
      seen.add(code);
      out.push(e);
    }
  }
  return out;
}

/**
 * Mastodon's Status entities for a page of statuses, in input order, as seen by `viewerId`
 * (null: anonymous, so the viewer flags are omitted). All lookups are batched: a page costs
 * a fixed number of queries whatever its length.
 */
export function toApiStatuses(app: App, statuses: Status[], viewerId: Id | null, opts: StatusSerializeOptions = {}): ApiStatus[] {
  if (statuses.length === 0) return [];
  return renderStatusPage(app, statuses, readStatusPage(app, statuses, viewerId, (ids) => embeddedAccounts(app, ids)), viewerId, opts);
}

/** `toApiStatuses` from a page read already (a notifications page reads its statuses' page with its own). */
export function renderStatusPage(app: App, statuses: Status[], page: StatusPage<EmbeddedAccount>, viewerId: Id | null, opts: StatusSerializeOptions = {}): ApiStatus[] {
  const batch = batchOf(app, page);
  return statuses.map((s) => render(app, s, batch, viewerId, opts));
}

export interface StatusPageOptions {
  /**
   * Leaves out the statuses the viewer's `hide` filters drop in this context (the route names
   * it): decided on the matches the page read computes for `filtered` anyway.
   */
  hideIn?: FilterContext;
}

/**
 * The same page as `toApiStatuses`, as JSON text (what timelines send): built from cached
 * text where the rows allow it.
 */
export function toApiStatusesJson(app: App, statuses: Status[], viewerId: Id | null, opts: StatusPageOptions = {}): string {
  return "[" + toApiStatusTexts(app, statuses, viewerId, opts).join(",") + "]";
}

/** Each status's JSON text, in input order (for entities that embed statuses). */
export function toApiStatusTexts(app: App, statuses: Status[], viewerId: Id | null, opts: StatusPageOptions = {}): string[] {
  if (statuses.length === 0) return [];
  const page = readStatusPage(app, statuses, viewerId, (ids) => embeddedAccounts(app, ids));
  const hidden = opts.hideIn && viewerId ? hiddenOnPage(page, statuses, viewerId, opts.hideIn) : undefined;
  const shown = hidden?.size ? statuses.filter((s) => !hidden.has(s.id)) : statuses;
  return renderStatusPageTexts(app, shown, page, viewerId);
}

/** `toApiStatusTexts` from a page read already. */
export function renderStatusPageTexts(app: App, statuses: Status[], page: StatusPage<EmbeddedAccount>, viewerId: Id | null): string[] {
  const batch = batchOf(app, page);
  return statuses.map((s) => renderText(app, s, batch, viewerId));
}

/**
 * Statuses' JSON texts as each of their viewers sees them (the live streams' fast path, for
 * everything one delivery turn carries): the page is read and each shared text built once,
 * and one viewer-flags query serves every viewer; viewers who see a status alike get the very
 * same string. `viewersOf`: status id → its viewers; the result is keyed the same way.
 */
export function toApiStatusTextsForViewers(app: App, statuses: Status[], viewersOf: Map<Id, Id[]>): Map<Id, Map<Id, string>> {
  const out = new Map<Id, Map<Id, string>>();
  const viewerIds = [...new Set([...viewersOf.values()].flat())];
  if (statuses.length === 0 || viewerIds.length === 0) return out;
  const page = readStatusPage(app, statuses, null, (ids) => embeddedAccounts(app, ids));
  const batch = batchOf(app, page);
  const parts = readViewerParts(app, statuses, page, viewerIds);
  for (const status of statuses) {
    const texts = new Map<Id, string>();
    out.set(status.id, texts);
    // Most of a post's followers see it the same way: the streams then frame it once for them all.
    const byPieces = new Map<string, string>();
    for (const viewerId of viewersOf.get(status.id) ?? []) {
      const b = { ...batch, ...parts.get(viewerId)! };
      const pieces = viewerPieces(app, status, b, viewerId);
      const key = JSON.stringify(pieces);
      let text = byPieces.get(key);
      if (text === undefined) byPieces.set(key, (text = renderText(app, status, b, viewerId, pieces)));
      texts.set(viewerId, text);
    }
  }
  return out;
}

export function toApiStatus(app: App, status: Status, viewerId: Id | null, opts: StatusSerializeOptions = {}): ApiStatus {
  return toApiStatuses(app, [status], viewerId, opts)[0];
}
