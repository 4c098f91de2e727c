// The periodic task trends.refresh: links of new posts recorded, every kind scored again, old
// uses dropped. Each step is its own transaction, so a server keeps answering meanwhile.
import type { App } from "../app.ts";
import { tx } from "../db/db.ts";
import { recordLinkUses, trimTrendUses } from "./record-uses.ts";
import { scoreTrends, TREND_KINDS } from "./scores.ts";

export const REFRESH_TASK = "trends.refresh";
export const REFRESH_EVERY_MS = 10 * 60_000;

export function refreshTrends(app: App): { tag: number; status: number; link: number } {
  const now = app.now();
  while (tx(app.db, () => recordLinkUses(app.db, now))) {
    // a backlog: one slice per transaction
  }
  const out = { tag: 0, status: 0, link: 0 };
  for (const kind of TREND_KINDS) out[kind] = tx(app.db, () => scoreTrends(app.db, kind, now));
  tx(app.db, () => trimTrendUses(app.db, now));
  return out;
}
