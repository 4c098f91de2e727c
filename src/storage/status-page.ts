import type { App } from "../app.ts";
import { readTx } from "../db/db.ts";
import type { Id } from "../lib/ids.ts";
import { scanShortcodes } from "../lib/shortcodes.ts";
import { type CustomEmoji, findEmojisByDomain } from "./custom-emojis.ts";
import { findMediaByStatusIds, type MediaAttachment } from "./media-attachments.ts";
import { filterRulesOf, type FilterMatch, hiddenFrom, matchFilters } from "./filter-rules.ts";
import type { FilterContext } from "./filters.ts";
import { findApplicationLabels } from "./status-applications.ts";
import { findOwnChoicesByPoll } from "./poll-votes.ts";
import { findPollsByIds, type Poll } from "./polls.ts";
import { findLiveStatusesCached } from "./status-cache.ts";
import { findStatusLinks, type MentionedAccount } from "./status-links.ts";
import type { Status } from "./statuses.ts";
import { loadViewerFlags, type ViewerFlags } from "./status-viewer-flags.ts";

// The reads behind a page of Status entities (serializers/status.ts), batched and in one read
// transaction: a page costs a fixed number of queries whatever its length.

/** Everything a page of statuses needs besides the rows. `A`: the authors, as the caller embeds them. */
export interface StatusPage<A> {
  originals: Map<Id, Status>;
  authors: Map<Id, A>;
  mentions: Map<Id, MentionedAccount[]>;
  tags: Map<Id, string[]>;
  media: Map<Id, MediaAttachment[]>;
  /** Key: `${domain ?? ""} ${shortcode}`. */
  emojis: Map<string, CustomEmoji>;
  flags: ViewerFlags | null;
  apps: Map<Id, { name: string; website: string | null }>;
  /** The page's polls by poll id (only statuses with a poll cost a query). */
  polls: Map<Id, Poll>;
  /** The viewer's choices by poll id (polls it voted in); null without a viewer. */
  ownChoices: Map<Id, number[]> | null;
  /**
   * The viewer's filters each status matches (`filtered`), keyed as Mastodon's
   * StatusRelationshipsPresenter keys them: a boost's matches also under the boosted post.
   */
  filtered: Map<Id, readonly FilterMatch[]>;
}

/** The shortcodes a poll's options name. */
export const pollShortcodes = (poll: Poll): string[] => scanShortcodes(poll.options.join(" "), []);

/** The shortcodes a status's content warning and text name (none for a boost). */
export function statusShortcodes(s: Status): string[] {
  if (s.reblogOfId) return [];
  return scanShortcodes(s.text || s.content, scanShortcodes(s.spoilerText, []));
}

/**
 * Reads a page in one read transaction. `authorsOf` gives the authors' accounts as the caller
 * embeds them (rendered, from its cache); it runs inside the transaction, so its reads share
 * the page's snapshot. Viewer flags and posting apps only for a viewer.
 */
export function readStatusPage<A extends { domain: string | null }>(
  app: App,
  statuses: Status[],
  viewerId: Id | null,
  authorsOf: (ids: Set<Id>) => Map<Id, A>,
): StatusPage<A> {
  return readTx(app.db, () => {
    const db = app.db;
    const pageIds = new Set(statuses.map((s) => s.id));
    const missing = statuses.filter((s) => s.reblogOfId && !pageIds.has(s.reblogOfId)).map((s) => s.reblogOfId!);
    const originals = findLiveStatusesCached(app, missing);
    for (const s of statuses) originals.set(s.id, s);
    const all = [...originals.values()];

    const authors = authorsOf(new Set(all.map((s) => s.accountId)));

    const contentIds = all.filter((s) => !s.reblogOfId).map((s) => s.id);
    const { mentions, tags } = findStatusLinks(db, contentIds);
    const media = findMediaByStatusIds(db, contentIds);
    const pollIds = all.filter((s) => s.pollId !== null && !s.reblogOfId).map((s) => s.pollId!);
    const polls = pollIds.length ? findPollsByIds(db, pollIds) : new Map<Id, Poll>();

    // One emoji query per distinct author domain on the page (usually one).
    const byDomain = new Map<string | null, Set<string>>();
    for (const s of all) {
      const poll = s.pollId ? polls.get(s.pollId) : undefined;
      const codes = poll ? [...statusShortcodes(s), ...pollShortcodes(poll)] : statusShortcodes(s);
      if (codes.length === 0) continue;
      const domain = authors.get(s.accountId)?.domain ?? null;
      let set = byDomain.get(domain);
      if (!set) byDomain.set(domain, (set = new Set()));
      for (const c of codes) set.add(c);
    }
    const emojis = findEmojisByDomain(db, byDomain);

    let flags: ViewerFlags | null = null;
    let apps = new Map<Id, { name: string; website: string | null }>();
    let ownChoices: Map<Id, number[]> | null = null;
    const filtered = new Map<Id, readonly FilterMatch[]>();
    if (viewerId) {
      ownChoices = polls.size ? findOwnChoicesByPoll(db, viewerId, polls.keys()) : new Map();
      const rules = filterRulesOf(app, viewerId);
      if (rules.filters.length) {
        for (const s of statuses) {
          const proper = s.reblogOfId ? originals.get(s.reblogOfId) : s;
          if (!proper) continue;
          const pollOptions = proper.pollId ? (polls.get(proper.pollId)?.options ?? null) : null;
          const matches = matchFilters(rules, s, proper, media.get(proper.id), pollOptions);
          if (matches.length === 0) continue;
          filtered.set(s.id, matches);
          if (s.reblogOfId) filtered.set(s.reblogOfId, matches);
        }
      }
      const conversations = all.map((s) => s.conversationId).filter((c): c is Id => c !== null);
      flags = loadViewerFlags(db, viewerId, all.map((s) => s.id), conversations);
      const appIds = all.filter((s) => s.accountId === viewerId && s.applicationId).map((s) => s.applicationId!);
      apps = findApplicationLabels(db, appIds);
    }
    return { originals, authors, mentions, tags, media, emojis, flags, apps, polls, ownChoices, filtered };
  });
}

/**
 * The statuses of a page read for `viewerId` that its `hide` filters drop in `context` (see
 * filter-rules.ts hiddenFrom), from the matches the page holds already.
 */
export function hiddenOnPage<A>(page: StatusPage<A>, statuses: Status[], viewerId: Id, context: FilterContext): Set<Id> {
  const hidden = new Set<Id>();
  if (page.filtered.size === 0) return hidden;
  for (const s of statuses) {
    const proper = s.reblogOfId ? page.originals.get(s.reblogOfId) : s;
    if (proper && hiddenFrom(viewerId, page.filtered.get(s.id), proper, context)) hidden.add(s.id);
  }
  return hidden;
}
