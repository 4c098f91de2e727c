import { type DB, type Row, idListJson, num, stmt, str } from "../db/db.ts";
import type { Id } from "../lib/ids.ts";

// Emoji reactions to announcements (migration 0050): one row per account and emoji.

export interface ReactionCount {
  name: string;
  count: number;
  /** Whether the viewer is among them (false without a viewer). */
  me: boolean;
}

/** Adds the account's reaction; false when it had reacted so already. */
export function insertAnnouncementReaction(db: DB, r: { id: Id; announcementId: Id; accountId: Id; name: string; createdAt: number }): boolean {
  const res = stmt(
    db,
    "INSERT OR IGNORE INTO announcement_reactions (id, announcement_id, account_id, name, created_at) VALUES (@id, @announcementId, @accountId, @name, @createdAt)",
  ).run({ id: BigInt(r.id), announcementId: BigInt(r.announcementId), accountId: BigInt(r.accountId), name: r.name, createdAt: r.createdAt });
  return res.changes > 0;
}

/** Removes the account's reaction; false when there was none. */
export function deleteAnnouncementReaction(db: DB, announcementId: Id, accountId: Id, name: string): boolean {
  return (
    stmt(db, "DELETE FROM announcement_reactions WHERE announcement_id = ? AND name = ? AND account_id = ?").run(BigInt(announcementId), name, BigInt(accountId))
      .changes > 0
  );
}

/** How many accounts reacted to the announcement with `name`. */
export function countAnnouncementReactions(db: DB, announcementId: Id, name: string): number {
  return num(stmt(db, "SELECT count(*) FROM announcement_reactions WHERE announcement_id = ? AND name = ?").pluck().get(BigInt(announcementId), name));
}

/** The distinct emojis used on the announcement, `name` left out (Mastodon's ReactionValidator limit). */
export function countOtherReactionNames(db: DB, announcementId: Id, name: string): number {
  return num(stmt(db, "SELECT count(DISTINCT name) FROM announcement_reactions WHERE announcement_id = ? AND name <> ?").pluck().get(BigInt(announcementId), name));
}

/**
 * The reactions of each announcement, by emoji, in the order each emoji was first used (as
 * Mastodon orders them), with the viewer's own marked: one query for the page.
 */
export function reactionsOfAnnouncements(db: DB, announcementIds: Id[], viewerId: Id | null): Map<Id, ReactionCount[]> {
  const out = new Map<Id, ReactionCount[]>();
  if (announcementIds.length === 0) return out;
  const rows = stmt(
    db,
    `SELECT r.announcement_id AS aid, r.name, count(*) AS n, max(r.account_id = @viewer) AS me, min(r.id) AS first
     FROM json_each(@ids) j JOIN announcement_reactions r ON r.announcement_id = j.value
     GROUP BY r.announcement_id, r.name
     ORDER BY r.announcement_id, first`,
  ).all({ ids: idListJson(announcementIds), viewer: viewerId === null ? null : BigInt(viewerId) }) as Row[];
  for (const r of rows) {
    const id = str(r.aid);
    let list = out.get(id);
    if (!list) out.set(id, (list = []));
    list.push({ name: r.name as string, count: num(r.n), me: num(r.me ?? 0) === 1 });
  }
  return out;
}
