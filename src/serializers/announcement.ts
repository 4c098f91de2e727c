// https://docs.joinmastodon.org/entities/Announcement/ (entities-other.md "Announcement"):
// Mastodon's REST::AnnouncementSerializer and REST::ReactionSerializer. A page of them costs a
// fixed number of queries: reactions, dismissals, accounts, emojis, and the linked statuses.
import type { App } from "../app.ts";
import type { Id } from "../lib/ids.ts";
import { isoTime } from "../lib/iso-time.ts";
import { scanShortcodes } from "../lib/shortcodes.ts";
import { uniqueHashtags } from "../lib/tags.ts";
import { extractUrls } from "../lib/text-html.ts";
import { tagUrl } from "../lib/urls.ts";
import { type ReactionCount, countAnnouncementReactions, reactionsOfAnnouncements } from "../storage/announcement-reactions.ts";
import { type Announcement, dismissedAnnouncementIds } from "../storage/announcements.ts";
import { findAccountsByIds } from "../storage/accounts.ts";
import { type CustomEmoji, findEmojisByShortcodes } from "../storage/custom-emojis.ts";
import type { Status } from "../storage/statuses.ts";
import { findStatusByLink } from "../storage/status-urls.ts";
import { type ApiCustomEmoji, toApiCustomEmoji } from "./custom-emoji.ts";
import { type ApiStatus, toApiStatuses } from "./status.ts";

export interface ApiReaction {
  name: string;
  count: number;
  me?: boolean;
  url?: string;
  static_url?: string;
}

export interface ApiAnnouncement {
  id: string;
  content: string;
  starts_at: string | null;
  ends_at: string | null;
  all_day: boolean;
  published_at: string | null;
  updated_at: string;
  read?: boolean;
  mentions: { id: string; username: string; url: string; acct: string }[];
  statuses: ApiStatus[];
  tags: { name: string; url: string }[];
  emojis: ApiCustomEmoji[];
  reactions: ApiReaction[];
}

/** What staff see besides: the source text and the publication state (roost's admin API). */
export interface ApiAdminAnnouncement extends ApiAnnouncement {
  text: string;
  published: boolean;
  scheduled_at: string | null;
  created_at: string;
}

const iso = (ms: number | null) => (ms === null ? null : isoTime(ms));

/** Statuses an announcement links to (Mastodon's Status.from_text): public or unlisted, live. */
function linkedStatuses(app: App, a: Announcement): Status[] {
  const out: Status[] = [];
  for (const { url } of extractUrls(a.text)) {
    const s = findStatusByLink(app.db, url);
    if (s && (s.visibility === "public" || s.visibility === "unlisted") && !out.some((x) => x.id === s.id)) out.push(s);
  }
  return out;
}

function reactionEntity(r: ReactionCount, emojis: Map<string, ApiCustomEmoji>, withMe: boolean): ApiReaction {
  const out: ApiReaction = { name: r.name, count: r.count };
  if (withMe) out.me = r.me;
  const e = emojis.get(r.name);
  if (e) {
    out.url = e.url;
    out.static_url = e.static_url;
  }
  return out;
}

/** Local, enabled custom emojis by shortcode, as entities. */
function localEmojis(app: App, shortcodes: string[]): Map<string, ApiCustomEmoji> {
  const out = new Map<string, ApiCustomEmoji>();
  const found: CustomEmoji[] = findEmojisByShortcodes(app.db, shortcodes.filter((c) => /^[a-zA-Z0-9_]{2,}$/.test(c)), null);
  for (const e of found) out.set(e.shortcode, toApiCustomEmoji(app, e));
  return out;
}

/**
 * Announcement entities as `viewerId` sees them: with `read` and each reaction's `me`; null
 * renders them anonymously (the streams, as Mastodon's InlineRenderer does with no user).
 */
export function toApiAnnouncements(app: App, list: Announcement[], viewerId: Id | null): ApiAnnouncement[] {
  if (list.length === 0) return [];
  const ids = list.map((a) => a.id);
  const reactions = reactionsOfAnnouncements(app.db, ids, viewerId);
  const dismissed = viewerId ? dismissedAnnouncementIds(app.db, viewerId, ids) : new Set<Id>();
  const accounts = findAccountsByIds(app.db, [...new Set(list.flatMap((a) => a.mentionIds))]);
  const codes: string[] = [];
  for (const a of list) scanShortcodes(a.text, codes);
  for (const rs of reactions.values()) for (const r of rs) codes.push(r.name);
  const emojis = localEmojis(app, [...new Set(codes)]);
  const linked = list.map((a) => linkedStatuses(app, a));
  const rendered = toApiStatuses(app, [...new Map(linked.flat().map((s) => [s.id, s])).values()], viewerId);
  const statusById = new Map(rendered.map((s) => [s.id, s]));

  return list.map((a, i) => {
    const out: ApiAnnouncement = {
      id: a.id,
      content: a.content,
      starts_at: iso(a.startsAt),
      ends_at: iso(a.endsAt),
      all_day: a.allDay,
      published_at: iso(a.publishedAt),
      updated_at: isoTime(a.updatedAt),
      ...(viewerId ? { read: dismissed.has(a.id) } : {}),
      mentions: a.mentionIds.flatMap((id) => {
        const acc = accounts.get(id);
        if (!acc) return [];
        return [{ id: acc.id, username: acc.username, url: acc.url ?? acc.uri, acct: acc.domain ? `${acc.username}@${acc.domain}` : acc.username }];
      }),
      statuses: linked[i].flatMap((s) => statusById.get(s.id) ?? []),
      tags: uniqueHashtags(a.text).map((t) => ({ name: t.name, url: tagUrl(app.baseUrl, t.name) })),
      emojis: [...new Set(scanShortcodes(a.text, []))].flatMap((c) => emojis.get(c) ?? []),
      reactions: (reactions.get(a.id) ?? []).map((r) => reactionEntity(r, emojis, viewerId !== null)),
    };
    return out;
  });
}

export function toApiAdminAnnouncements(app: App, list: Announcement[]): ApiAdminAnnouncement[] {
  const base = toApiAnnouncements(app, list, null);
  return list.map((a, i) => ({ ...base[i], text: a.text, published: a.published, scheduled_at: iso(a.scheduledAt), created_at: isoTime(a.createdAt) }));
}

/**
 * The `announcement.reaction` payload (Mastodon's PublishAnnouncementReactionWorker): the
 * emoji's count now, with its image for a custom emoji still in use, and the announcement's id.
 */
export function toApiAnnouncementReactionEvent(app: App, announcementId: Id, name: string): ApiReaction & { announcement_id: string } {
  const count = countAnnouncementReactions(app.db, announcementId, name);
  const reaction = reactionEntity({ name, count, me: false }, count > 0 ? localEmojis(app, [name]) : new Map(), false);
  return { ...reaction, announcement_id: announcementId };
}
