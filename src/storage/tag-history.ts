// The daily use counts behind Mastodon's Tag `history` (migration 0025: tag_days and
// tag_day_accounts, filled by a trigger as posts are linked to tags).
import { type DB, type Row, stmt, str, num, idListJson } from "../db/db.ts";
import type { Id } from "../lib/ids.ts";

export interface TagDayUse {
  /** UTC midnight, ms. */
  day: number;
  uses: number;
  accounts: number;
}

/** The recorded days from `sinceDay` (UTC midnight, ms) of several tags; one index range per tag. */
export function tagDailyUses(db: DB, tagIds: Id[], sinceDay: number): Map<Id, TagDayUse[]> {
  const out = new Map<Id, TagDayUse[]>();
  if (tagIds.length === 0) return out;
  const rows = stmt(
    db,
    `SELECT d.tag_id, d.day, d.uses, d.accounts FROM json_each(@tags) j
     JOIN tag_days d ON d.tag_id = j.value AND d.day >= @since`,
  ).all({ tags: idListJson(tagIds), since: sinceDay }) as Row[];
  for (const r of rows) {
    const id = str(r.tag_id);
    let list = out.get(id);
    if (!list) out.set(id, (list = []));
    list.push({ day: num(r.day), uses: num(r.uses), accounts: num(r.accounts) });
  }
  return out;
}

/** Drops the counts of days before `beforeDay`; returns the rows removed. */
export function trimTagDays(db: DB, beforeDay: number): number {
  const a = stmt(db, "DELETE FROM tag_day_accounts WHERE day < ?").run(beforeDay);
  const b = stmt(db, "DELETE FROM tag_days WHERE day < ?").run(beforeDay);
  return num(a.changes) + num(b.changes);
}
