import type { App } from "../../app.ts";
import { trimTagDays } from "../../storage/tag-history.ts";

const DAY = 86_400_000;
/** A tag's history shows seven days; one more is kept for a clock near midnight. */
const KEEP_DAYS = 8;

/** Periodic: drops the daily tag counts the history no longer shows. */
export function trimTagHistory(app: App): void {
  const now = app.now();
  trimTagDays(app.db, now - (now % DAY) - KEEP_DAYS * DAY);
}
