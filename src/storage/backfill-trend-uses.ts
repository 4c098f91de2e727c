import { type DB, type Row, stmt, str, idListJson } from "../db/db.ts";
import type { Id } from "../lib/ids.ts";

// A backfilled post (issue 19 part 5) is not new: the trend uses and the tag history counts
// that the triggers of migrations/0041_trends.sql and 0025_tags.sql record as its rows arrive
// are taken back in the same transaction.

const hourOf = (at: number) => at - (at % 3_600_000);
const dayOf = (at: number) => at - (at % 86_400_000);

/** Of `tagIds`, those the author has no use of yet in that hour (the ones the post would add). */
export function tagsWithoutTrendUse(db: DB, accountId: Id, at: number, tagIds: Id[]): Id[] {
  if (!tagIds.length) return [];
  const rows = stmt(
    db,
    `SELECT value AS id FROM json_each(@tags) WHERE NOT EXISTS (
       SELECT 1 FROM trend_uses WHERE kind = 'tag' AND item_id = value AND hour = @hour AND account_id = @account)`,
  ).all({ tags: idListJson(tagIds), hour: hourOf(at), account: BigInt(accountId) }) as Row[];
  return rows.map((r) => str(r.id));
}

/** Of `tagIds`, those the author has not used yet on that day (tag history's accounts). */
export function tagsWithoutDayAccount(db: DB, accountId: Id, at: number, tagIds: Id[]): Id[] {
  if (!tagIds.length) return [];
  const rows = stmt(
    db,
    `SELECT value AS id FROM json_each(@tags) WHERE NOT EXISTS (
       SELECT 1 FROM tag_day_accounts WHERE tag_id = value AND day = @day AND account_id = @account)`,
  ).all({ tags: idListJson(tagIds), day: dayOf(at), account: BigInt(accountId) }) as Row[];
  return rows.map((r) => str(r.id));
}

export interface BackfillTagUses {
  /** Tags the post had no trend use of before (tagsWithoutTrendUse). */
  newTrendUses: Id[];
  /** Tags the author had not used that day (tagsWithoutDayAccount). */
  newDayAccounts: Id[];
}

/** Removes what a backfilled post added: its new tag uses, its tag history counts, its queued links. */
export function forgetBackfillTrendUses(db: DB, statusId: Id, accountId: Id, at: number, before: BackfillTagUses): void {
  const newTagIds = before.newTrendUses;
  const linked = stmt(db, "SELECT tag_id FROM statuses_tags WHERE status_id = @id").all({ id: BigInt(statusId) }) as Row[];
  const counted = new Set(before.newDayAccounts);
  // The history triggers counted only public posts by unsilenced accounts: taken back only if counted.
  const rows = stmt(
    db,
    `SELECT 1 FROM statuses s JOIN accounts a ON a.id = s.account_id
      WHERE s.id = @id AND s.visibility = 'public' AND s.reblog_of_id IS NULL AND a.silenced_at IS NULL`,
  ).get({ id: BigInt(statusId) });
  if (rows) {
    const day = dayOf(at);
    for (const r of linked) {
      const tag = str(r.tag_id);
      const fresh = counted.has(tag) ? 1 : 0;
      stmt(db, "UPDATE tag_days SET uses = max(uses - 1, 0), accounts = max(accounts - @fresh, 0) WHERE tag_id = @tag AND day = @day").run({
        tag: BigInt(tag),
        day,
        fresh,
      });
      if (fresh) stmt(db, "DELETE FROM tag_day_accounts WHERE tag_id = @tag AND day = @day AND account_id = @account").run({ tag: BigInt(tag), day, account: BigInt(accountId) });
    }
    stmt(db, "DELETE FROM tag_days WHERE day = @day AND uses = 0").run({ day });
  }
  if (newTagIds.length) {
    stmt(
      db,
      `DELETE FROM trend_uses WHERE kind = 'tag' AND hour = @hour AND account_id = @account
         AND item_id IN (SELECT value FROM json_each(@tags))`,
    ).run({ tags: idListJson(newTagIds), hour: hourOf(at), account: BigInt(accountId) });
  }
  stmt(db, "DELETE FROM trend_link_queue WHERE status_id = @id").run({ id: BigInt(statusId) });
}
