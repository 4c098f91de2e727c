import type { App } from "../app.ts";
import { tx } from "../db/db.ts";
import { notFound } from "../errors.ts";
import { parseId } from "../lib/ids.ts";
import { isoTime, parseIsoTime } from "../lib/iso-time.ts";
import { Validation } from "../lib/validation.ts";
import {
  ANNOUNCEMENT_BROADCAST_JOB,
  type Announcement,
  renderAnnouncementText,
  scheduleAnnouncementJobs,
} from "../services/announcements.ts";
import { deleteAnnouncement, findAnnouncementById, insertAnnouncement, listAllAnnouncements, saveAnnouncement } from "../storage/announcements.ts";
import { type Actor, requireCan } from "./actor.ts";
import { audit, changesOf } from "./audit.ts";

// Announcements by staff (manage_announcements): Mastodon's Admin::AnnouncementsController,
// which only its web UI reaches; roost serves the same use cases over /api/roost/v1/admin/announcements
// and `roost announcements`. Each change is audited (create / update / destroy Announcement, as
// Mastodon logs them) and reaches the live streams through the `announcement.broadcast` job.

/** Mastodon sets no limit; this one keeps a pasted novel (or a 1 MB field) out. */
export const MAX_ANNOUNCEMENT_TEXT = 10_000;

/** What create and update read; each field a raw parameter, undefined when not given ("" clears a time). */
export interface AnnouncementInput {
  text?: string;
  startsAt?: string;
  endsAt?: string;
  allDay?: boolean;
  scheduledAt?: string;
}

export function listAnnouncementsForStaff(app: App, actor: Actor): Announcement[] {
  requireCan(actor, "manage_announcements");
  return listAllAnnouncements(app.db);
}

export function requireAnnouncement(app: App, actor: Actor, rawId: unknown): Announcement {
  requireCan(actor, "manage_announcements");
  const id = parseId(rawId);
  const a = id ? findAnnouncementById(app.db, id) : undefined;
  if (!a) throw notFound();
  return a;
}

const iso = (ms: number | null) => (ms === null ? null : isoTime(ms));

/** The audited fields, under the API's names. */
function fieldsOf(a: Announcement) {
  return {
    text: a.text,
    starts_at: iso(a.startsAt),
    ends_at: iso(a.endsAt),
    all_day: a.allDay,
    scheduled_at: iso(a.scheduledAt),
    published: a.published,
    published_at: iso(a.publishedAt),
  };
}

const target = (a: Announcement) => ({ type: "Announcement", id: a.id, name: a.text.length > 100 ? a.text.slice(0, 99) + "…" : a.text });

/** A time parameter: undefined when absent, null when blank, else ms (an error is recorded). */
function readTime(v: Validation, attr: string, raw: string | undefined, current: number | null): number | null {
  if (raw === undefined) return current;
  if (raw.trim() === "") return null;
  const ms = parseIsoTime(raw);
  if (ms === undefined) {
    v.add(attr, "ERR_INVALID", "is invalid");
    return current;
  }
  return ms;
}

/** `input` applied to `base`, with Mastodon's validations (and an end after the start). */
function applyInput(app: App, base: Announcement, input: AnnouncementInput): Announcement {
  const v = new Validation();
  const text = input.text ?? base.text;
  if (text.trim() === "") v.add("text", "ERR_BLANK", "can't be blank");
  else if (text.length > MAX_ANNOUNCEMENT_TEXT) v.add("text", "ERR_TOO_LONG", `is too long (maximum is ${MAX_ANNOUNCEMENT_TEXT} characters)`);
  const startsAt = readTime(v, "starts_at", input.startsAt, base.startsAt);
  const endsAt = readTime(v, "ends_at", input.endsAt, base.endsAt);
  const scheduledAt = readTime(v, "scheduled_at", input.scheduledAt, base.scheduledAt);
  // The announced event has a start and an end, or neither.
  if (endsAt !== null && startsAt === null && !v.has("starts_at")) v.add("starts_at", "ERR_BLANK", "can't be blank");
  if (startsAt !== null && endsAt === null && !v.has("ends_at")) v.add("ends_at", "ERR_BLANK", "can't be blank");
  if (startsAt !== null && endsAt !== null && endsAt < startsAt) v.add("ends_at", "ERR_INVALID", "must be after the start");
  v.throwIfAny();
  const rendered = text === base.text && base.content !== "" ? undefined : renderAnnouncementText(app, text);
  return {
    ...base,
    text,
    content: rendered ? rendered.content : base.content,
    mentionIds: rendered ? rendered.mentions.map((m) => m.id) : base.mentionIds,
    allDay: input.allDay ?? base.allDay,
    startsAt,
    endsAt,
    scheduledAt,
  };
}

const broadcast = (app: App, a: Announcement, event: "announcement" | "delete") => app.jobs.enqueue(ANNOUNCEMENT_BROADCAST_JOB, { id: a.id, event });

/**
 * Creates an announcement: published at once unless `scheduled_at` is in the future (then the
 * `announcement.publish` job publishes it at that time), as Mastodon's Announcement#set_published.
 */
export function createAnnouncement(app: App, actor: Actor, input: AnnouncementInput): Announcement {
  requireCan(actor, "manage_announcements");
  const now = app.now();
  const empty: Announcement = {
    id: app.ids.next(),
    text: "",
    content: "",
    mentionIds: [],
    published: false,
    allDay: false,
    scheduledAt: null,
    startsAt: null,
    endsAt: null,
    publishedAt: null,
    createdAt: now,
    updatedAt: now,
  };
  const a = applyInput(app, empty, { ...input, text: input.text ?? "" });
  if (a.scheduledAt === null || a.scheduledAt <= now) Object.assign(a, { published: true, publishedAt: now, scheduledAt: null });
  return tx(app.db, () => {
    insertAnnouncement(app.db, a);
    audit(app, actor, "create", target(a), changesOf({}, fieldsOf(a)));
    scheduleAnnouncementJobs(app, a);
    if (a.published) broadcast(app, a, "announcement");
    return a;
  });
}

/** Changes the given fields; a published announcement is sent to the streams again (Mastodon does). */
export function updateAnnouncement(app: App, actor: Actor, before: Announcement, input: AnnouncementInput): Announcement {
  requireCan(actor, "manage_announcements");
  const a = { ...applyInput(app, before, input), updatedAt: app.now() };
  return tx(app.db, () => {
    saveAnnouncement(app.db, a);
    audit(app, actor, "update", target(a), changesOf(fieldsOf(before), fieldsOf(a)));
    scheduleAnnouncementJobs(app, a, before);
    if (a.published) broadcast(app, a, "announcement");
    return a;
  });
}

/** Publishes now (Announcement#publish!: a planned time is dropped) and tells the streams. */
export function publishAnnouncement(app: App, actor: Actor, before: Announcement): Announcement {
  requireCan(actor, "manage_announcements");
  const now = app.now();
  const a: Announcement = { ...before, published: true, publishedAt: now, scheduledAt: null, updatedAt: now };
  return tx(app.db, () => {
    saveAnnouncement(app.db, a);
    audit(app, actor, "update", target(a), changesOf(fieldsOf(before), fieldsOf(a)));
    scheduleAnnouncementJobs(app, a, before);
    broadcast(app, a, "announcement");
    return a;
  });
}

/** Withdraws it (Announcement#unpublish!: a planned time is dropped too); apps remove it. */
export function unpublishAnnouncement(app: App, actor: Actor, before: Announcement): Announcement {
  requireCan(actor, "manage_announcements");
  const a: Announcement = { ...before, published: false, scheduledAt: null, updatedAt: app.now() };
  return tx(app.db, () => {
    saveAnnouncement(app.db, a);
    audit(app, actor, "update", target(a), changesOf(fieldsOf(before), fieldsOf(a)));
    broadcast(app, a, "delete");
    return a;
  });
}

/** Deletes it with its reactions and dismissals; apps showing it remove it. */
export function destroyAnnouncement(app: App, actor: Actor, a: Announcement): void {
  requireCan(actor, "manage_announcements");
  tx(app.db, () => {
    deleteAnnouncement(app.db, a.id);
    audit(app, actor, "destroy", target(a), changesOf(fieldsOf(a), {}));
    if (a.published) broadcast(app, a, "delete");
  });
}

/** What `roost announcements` prints: one row per announcement, times in ISO 8601. */
export function announcementRow(a: Announcement) {
  return {
    id: a.id,
    published: a.published,
    published_at: iso(a.publishedAt),
    scheduled_at: iso(a.scheduledAt),
    starts_at: iso(a.startsAt),
    ends_at: iso(a.endsAt),
    all_day: a.allDay,
    text: a.text,
  };
}
