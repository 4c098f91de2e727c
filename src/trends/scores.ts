// Trend scores (src/trends/DESIGN.md), after Mastodon's Trends::Tags#calculate_scores but per
// hour: an item's distinct accounts in the last hour or two (the current UTC hour and the one
// before) against its own baseline, the distinct accounts of an average two hours of the day
// before. Only an item taken up by at least THRESHOLD accounts and more than its baseline
// scores, (observed - expected)² / expected. The best score stays for MAX_SCORE_COOLDOWN and
// decays with a half-life; below DECAY_THRESHOLD the item leaves the trends.
import { type DB, type Row, stmt, str } from "../db/db.ts";
import { HOUR } from "./record-uses.ts";

export type TrendKind = "tag" | "status" | "link";
export const TREND_KINDS: readonly TrendKind[] = ["tag", "status", "link"];

/** Distinct accounts an item needs in the window before it can trend (Mastodon's threshold). */
export const THRESHOLD = 5;
const WINDOW_HOURS = 2;
const BASELINE_HOURS = 24;
const MAX_SCORE_COOLDOWN = 48 * HOUR;
const HALF_LIFE: Record<TrendKind, number> = { tag: 2 * HOUR, status: 2 * HOUR, link: 4 * HOUR };
const DECAY_THRESHOLD = 1;

interface Candidate {
  itemId: string;
  observed: number;
  /** (hour, account) pairs of the baseline day: each hour's distinct accounts, summed. */
  before: number;
  maxScore: number | null;
  maxScoreAt: number | null;
}

function candidates(db: DB, kind: TrendKind, recent: number, baseFrom: number): Candidate[] {
  const rows = stmt(
    db,
    `WITH items AS (
       SELECT DISTINCT item_id FROM trend_uses WHERE hour >= @recent AND kind = @kind
       UNION SELECT item_id FROM trends WHERE kind = @kind)
     SELECT i.item_id,
       (SELECT count(DISTINCT account_id) FROM trend_uses u WHERE u.kind = @kind AND u.item_id = i.item_id AND u.hour >= @recent) AS observed,
       (SELECT count(*) FROM trend_uses u WHERE u.kind = @kind AND u.item_id = i.item_id AND u.hour >= @baseFrom AND u.hour < @recent) AS before,
       t.max_score, t.max_score_at
     FROM items i LEFT JOIN trends t ON t.kind = @kind AND t.item_id = i.item_id`,
  ).all({ kind, recent, baseFrom }) as Row[];
  return rows.map((r) => ({
    itemId: str(r.item_id),
    observed: Number(r.observed),
    before: Number(r.before),
    maxScore: r.max_score === null ? null : Number(r.max_score),
    maxScoreAt: r.max_score_at === null ? null : Number(r.max_score_at),
  }));
}

/** Recomputes the trends of one kind at `now`; returns how many items trend. */
export function scoreTrends(db: DB, kind: TrendKind, now: number): number {
  const hour = now - (now % HOUR);
  const recent = hour - (WINDOW_HOURS - 1) * HOUR;
  const baseFrom = recent - BASELINE_HOURS * HOUR;
  const upsert = stmt(
    db,
    `INSERT INTO trends (kind, item_id, score, max_score, max_score_at) VALUES (@kind, @item, @score, @maxScore, @maxScoreAt)
     ON CONFLICT (kind, item_id) DO UPDATE SET score = excluded.score, max_score = excluded.max_score, max_score_at = excluded.max_score_at`,
  );
  const remove = stmt(db, "DELETE FROM trends WHERE kind = ? AND item_id = ?");
  let trending = 0;
  for (const c of candidates(db, kind, recent, baseFrom)) {
    const expected = Math.max(1, (c.before * WINDOW_HOURS) / BASELINE_HOURS);
    const score = c.observed >= THRESHOLD && c.observed > expected ? (c.observed - expected) ** 2 / expected : 0;
    let maxScore = c.maxScore !== null && c.maxScoreAt !== null && c.maxScoreAt >= now - MAX_SCORE_COOLDOWN ? c.maxScore : 0;
    let maxScoreAt = c.maxScoreAt ?? now;
    if (score > maxScore) {
      maxScore = score;
      maxScoreAt = now;
    }
    const decaying = maxScore * 0.5 ** ((now - maxScoreAt) / HALF_LIFE[kind]);
    if (decaying >= DECAY_THRESHOLD) {
      upsert.run({ kind, item: BigInt(c.itemId), score: decaying, maxScore, maxScoreAt });
      trending++;
    } else {
      remove.run(kind, BigInt(c.itemId));
    }
  }
  return trending;
}
