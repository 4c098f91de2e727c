import { type DB, type Row, bool, idListJson, json, num, numOrNull, stmt, str } from "../db/db.ts";
import type { Id } from "../lib/ids.ts";

// Announcements and who dismissed them (migration 0050). Reactions: announcement-reactions.ts.

export interface Announcement {
  id: Id;
  /** As the admin wrote it. */
  text: string;
  /** `text` rendered (paragraphs, links, mentions, hashtags) when it was saved. */
  content: string;
  /** The accounts `content` links, in order of first mention. */
  mentionIds: Id[];
  published: boolean;
  allDay: boolean;
  scheduledAt: number | null;
  startsAt: number | null;
  endsAt: number | null;
  publishedAt: number | null;
  createdAt: number;
  updatedAt: number;
}

/** Mastodon's `chronological` order key: the event's start, else when it is or was published. */
const ORDER_KEY = "coalesce(starts_at, scheduled_at, published_at, created_at)";

function rowToAnnouncement(r: Row): Announcement {
  return {
    id: str(r.id),
    text: r.text as string,
    content: r.content as string,
    mentionIds: json<string[]>(r.mention_ids, []),
    published: bool(r.published),
    allDay: bool(r.all_day),
    scheduledAt: numOrNull(r.scheduled_at),
    startsAt: numOrNull(r.starts_at),
    endsAt: numOrNull(r.ends_at),
    publishedAt: numOrNull(r.published_at),
    createdAt: num(r.created_at),
    updatedAt: num(r.updated_at),
  };
}

function columns(a: Announcement) {
  return {
    id: BigInt(a.id),
    text: a.text,
    content: a.content,
    mentionIds: JSON.stringify(a.mentionIds),
    published: a.published ? 1 : 0,
    allDay: a.allDay ? 1 : 0,
    scheduledAt: a.scheduledAt,
    startsAt: a.startsAt,
    endsAt: a.endsAt,
    publishedAt: a.publishedAt,
    createdAt: a.createdAt,
    updatedAt: a.updatedAt,
  };
}

export function insertAnnouncement(db: DB, a: Announcement): void {
  stmt(
    db,
    `INSERT INTO announcements (id, text, content, mention_ids, published, all_day, scheduled_at, starts_at, ends_at, published_at, created_at, updated_at)
     VALUES (@id, @text, @content, @mentionIds, @published, @allDay, @scheduledAt, @startsAt, @endsAt, @publishedAt, @createdAt, @updatedAt)`,
  ).run(columns(a));
}

/** Writes every field of `a` (read, changed, written back in one transaction). */
export function saveAnnouncement(db: DB, a: Announcement): void {
  stmt(
    db,
    `UPDATE announcements SET text = @text, content = @content, mention_ids = @mentionIds, published = @published,
       all_day = @allDay, scheduled_at = @scheduledAt, starts_at = @startsAt, ends_at = @endsAt,
       published_at = @publishedAt, created_at = @createdAt, updated_at = @updatedAt
     WHERE id = @id`,
  ).run(columns(a));
}

export function deleteAnnouncement(db: DB, id: Id): void {
  stmt(db, "DELETE FROM announcements WHERE id = ?").run(BigInt(id));
}

export function findAnnouncementById(db: DB, id: Id): Announcement | undefined {
  const r = stmt(db, "SELECT * FROM announcements WHERE id = ?").get(BigInt(id)) as Row | undefined;
  return r && rowToAnnouncement(r);
}

/** Every announcement, newest first (the admin's list: Mastodon's reverse_chronological). */
export function listAllAnnouncements(db: DB): Announcement[] {
  return (stmt(db, `SELECT * FROM announcements ORDER BY ${ORDER_KEY} DESC, id DESC`).all() as Row[]).map(rowToAnnouncement);
}

/**
 * The published announcements that have not ended by `now`, oldest first; with
 * `undismissedBy`, without those that account dismissed.
 */
export function listCurrentAnnouncements(db: DB, now: number, undismissedBy?: Id): Announcement[] {
  const rows = undismissedBy
    ? stmt(
        db,
        `SELECT a.* FROM announcements a
         WHERE a.published = 1 AND (a.ends_at IS NULL OR a.ends_at > @now)
           AND NOT EXISTS (SELECT 1 FROM announcement_mutes m WHERE m.account_id = @account AND m.announcement_id = a.id)
         ORDER BY ${ORDER_KEY}, a.id`,
      ).all({ now, account: BigInt(undismissedBy) })
    : stmt(db, `SELECT * FROM announcements WHERE published = 1 AND (ends_at IS NULL OR ends_at > @now) ORDER BY ${ORDER_KEY}, id`).all({ now });
  return (rows as Row[]).map(rowToAnnouncement);
}

/** Marks the announcement read for the account; a second time changes nothing. */
export function insertAnnouncementMute(db: DB, accountId: Id, announcementId: Id, now: number): void {
  stmt(db, "INSERT OR IGNORE INTO announcement_mutes (account_id, announcement_id, created_at) VALUES (?, ?, ?)").run(
    BigInt(accountId),
    BigInt(announcementId),
    now,
  );
}

/** Which of `announcementIds` the account dismissed. */
export function dismissedAnnouncementIds(db: DB, accountId: Id, announcementIds: Id[]): Set<Id> {
  if (announcementIds.length === 0) return new Set();
  const rows = stmt(
    db,
    `SELECT m.announcement_id AS id FROM json_each(@ids) j
     JOIN announcement_mutes m ON m.account_id = @account AND m.announcement_id = j.value`,
  ).all({ ids: idListJson(announcementIds), account: BigInt(accountId) }) as Row[];
  return new Set(rows.map((r) => str(r.id)));
}
