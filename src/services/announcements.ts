import type { App } from "../app.ts";
import { tx } from "../db/db.ts";
import { notFound, unprocessable } from "../errors.ts";
import { type Id, parseId } from "../lib/ids.ts";
import { formatStatusText, mentionHandles } from "../lib/status-text.ts";
import { isUnicodeEmoji } from "../lib/unicode-emoji.ts";
import {
  countAnnouncementReactions,
  countOtherReactionNames,
  deleteAnnouncementReaction,
  insertAnnouncementReaction,
} from "../storage/announcement-reactions.ts";
import {
  type Announcement,
  findAnnouncementById,
  insertAnnouncementMute,
  listCurrentAnnouncements,
  saveAnnouncement,
} from "../storage/announcements.ts";
import type { Account } from "../storage/accounts.ts";
import { findEmojisByShortcodes } from "../storage/custom-emojis.ts";
import { SHORTCODE_RE } from "./custom-emojis.ts";
import { knownAccountResolver } from "./statuses.ts";
import { publishAnnouncementById, publishAnnouncementDeleted, publishAnnouncementReactionChange } from "./stream-events.ts";

// Announcements as users see them (Mastodon's Api::V1::AnnouncementsController, its reactions
// controller, and the workers that publish scheduled announcements and tell the streams):
// listing, dismissing, reacting; and the jobs that publish at `scheduled_at` and unpublish at
// `ends_at`. Staff create and change them through admin/announcements.ts.

export type { Announcement } from "../storage/announcements.ts";

/** `scheduled_at`: publishes the announcement if it is still planned for that time. */
export const ANNOUNCEMENT_PUBLISH_JOB = "announcement.publish";
/** `ends_at`: unpublishes it if it still ends then (Mastodon's scheduler does so every 5 min). */
export const ANNOUNCEMENT_EXPIRE_JOB = "announcement.expire";
/**
 * Tells the live streams of a change staff made (Mastodon's PublishScheduledAnnouncementWorker
 * and UnpublishAnnouncementWorker). A job, so that a change made by `roost announcements` in
 * another process reaches the streams of the running server too.
 */
export const ANNOUNCEMENT_BROADCAST_JOB = "announcement.broadcast";

/** Mastodon's ReactionValidator::LIMIT: distinct emojis per announcement. */
export const MAX_REACTION_NAMES = 8;

/** Published and not ended: what GET /api/v1/announcements lists and users may act on. */
export function isCurrent(a: Announcement, now: number): boolean {
  return a.published && (a.endsAt === null || a.endsAt > now);
}

/**
 * The text as HTML, rendered as Mastodon's `linkify` does for announcements: paragraphs, links,
 * hashtags, and mentions of accounts this server knows (never fetched); other handles stay text.
 */
export function renderAnnouncementText(app: App, text: string): { content: string; mentions: Account[] } {
  const resolve = knownAccountResolver(app);
  const mentions: Account[] = [];
  for (const h of mentionHandles(text, app.config.domain)) {
    const a = resolve(h);
    if (a && !mentions.some((m) => m.id === a.id)) mentions.push(a);
  }
  return { content: formatStatusText(text, { baseUrl: app.baseUrl, localDomain: app.config.domain, mentions }), mentions };
}

/**
 * GET /api/v1/announcements: the current announcements, oldest first. Mastodon lists the
 * dismissed ones too (with `read: true`); `with_dismissed=false`, as its API documentation
 * describes the parameter, leaves them out.
 */
export function listAnnouncements(app: App, viewerId: Id, opts: { withDismissed?: boolean } = {}): Announcement[] {
  return listCurrentAnnouncements(app.db, app.now(), opts.withDismissed === false ? viewerId : undefined);
}

/** A current announcement, else "Record not found" (Mastodon's Announcement.published.find). */
export function requireCurrentAnnouncement(app: App, rawId: unknown): Announcement {
  const id = parseId(rawId);
  const a = id ? findAnnouncementById(app.db, id) : undefined;
  if (!a || !isCurrent(a, app.now())) throw notFound();
  return a;
}

/** The announcement if it is current (what the streams render), else undefined. */
export function findCurrentAnnouncement(app: App, id: Id): Announcement | undefined {
  const a = findAnnouncementById(app.db, id);
  return a && isCurrent(a, app.now()) ? a : undefined;
}

/** POST /api/v1/announcements/:id/dismiss: read for this account from now on. */
export function dismissAnnouncement(app: App, accountId: Id, rawId: unknown): void {
  const a = requireCurrentAnnouncement(app, rawId);
  insertAnnouncementMute(app.db, accountId, a.id, app.now());
}

/** A local, enabled custom emoji by that exact shortcode (CustomEmoji.local.find_by(disabled: false)). */
function isLocalEmoji(app: App, name: string): boolean {
  return SHORTCODE_RE.test(name) && findEmojisByShortcodes(app.db, [name], null).length > 0;
}

/**
 * PUT /api/v1/announcements/:id/reactions/:name, with Mastodon's answers: 422 for a name
 * that is neither a unicode emoji nor a local custom emoji, for a ninth distinct emoji, and
 * "Duplicate record" when the account reacted so already.
 */
export function addAnnouncementReaction(app: App, accountId: Id, rawId: unknown, name: string): void {
  const a = requireCurrentAnnouncement(app, rawId);
  if (name.trim() === "") throw unprocessable("Validation failed: Name can't be blank");
  if (!isLocalEmoji(app, name) && !isUnicodeEmoji(name)) throw unprocessable("Validation failed: Name is not a recognized emoji");
  tx(app.db, () => {
    const isNew = countAnnouncementReactions(app.db, a.id, name) === 0;
    if (isNew && countOtherReactionNames(app.db, a.id, name) >= MAX_REACTION_NAMES) {
      throw unprocessable("Validation failed: Limit of different reactions reached");
    }
    if (!insertAnnouncementReaction(app.db, { id: app.ids.next(), announcementId: a.id, accountId, name, createdAt: app.now() })) {
      throw unprocessable("Duplicate record");
    }
    publishAnnouncementReactionChange(app, a.id, name);
  });
}

/** DELETE /api/v1/announcements/:id/reactions/:name: 404 when the account has no such reaction. */
export function removeAnnouncementReaction(app: App, accountId: Id, rawId: unknown, name: string): void {
  const a = requireCurrentAnnouncement(app, rawId);
  tx(app.db, () => {
    if (!deleteAnnouncementReaction(app.db, a.id, accountId, name)) throw notFound();
    publishAnnouncementReactionChange(app, a.id, name);
  });
}

/**
 * The jobs a saved announcement needs (call in the transaction that saved it): publication
 * at `scheduled_at` while it is unpublished, and the end at `ends_at`. Each job checks when it
 * runs that the announcement still has that time, so a moved time leaves a harmless no-op.
 */
export function scheduleAnnouncementJobs(app: App, a: Announcement, before?: Announcement): void {
  if (!a.published && a.scheduledAt !== null && (before?.scheduledAt !== a.scheduledAt || before.published)) {
    app.jobs.enqueue(ANNOUNCEMENT_PUBLISH_JOB, { id: a.id, at: a.scheduledAt }, { runAt: a.scheduledAt });
  }
  if (a.published && a.endsAt !== null && (before?.endsAt !== a.endsAt || !before.published)) {
    app.jobs.enqueue(ANNOUNCEMENT_EXPIRE_JOB, { id: a.id, at: a.endsAt }, { runAt: a.endsAt });
  }
}

/** The `announcement.publish` job: publishes an announcement whose time has come, and tells the streams. */
export function publishDueAnnouncement(app: App, id: Id, at: number): void {
  tx(app.db, () => {
    const before = findAnnouncementById(app.db, id);
    if (!before || before.published || before.scheduledAt !== at || at > app.now()) return;
    const now = app.now();
    const a: Announcement = { ...before, published: true, publishedAt: now, scheduledAt: null, updatedAt: now };
    saveAnnouncement(app.db, a);
    scheduleAnnouncementJobs(app, a, before);
    if (isCurrent(a, now)) publishAnnouncementById(app, a.id);
  });
}

/** The `announcement.expire` job: an announcement whose `ends_at` passed is unpublished. */
export function expireAnnouncement(app: App, id: Id, at: number): void {
  tx(app.db, () => {
    const a = findAnnouncementById(app.db, id);
    if (!a || !a.published || a.endsAt !== at || at > app.now()) return;
    saveAnnouncement(app.db, { ...a, published: false, scheduledAt: null, updatedAt: app.now() });
    // Mastodon's scheduler unpublishes silently; open apps would keep showing it until reloaded.
    publishAnnouncementDeleted(app, a.id);
  });
}

/** The `announcement.broadcast` job: `announcement` if it is current now, or `announcement.delete`. */
export function broadcastAnnouncement(app: App, id: Id, event: "announcement" | "delete"): void {
  if (event === "delete") publishAnnouncementDeleted(app, id);
  else if (findCurrentAnnouncement(app, id)) publishAnnouncementById(app, id);
}
