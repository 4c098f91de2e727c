import type { App } from "../app.ts";
import { localStatusesByWeek, loginsByWeek, registrationsByWeek } from "../storage/instance-stats.ts";

const DAY = 86_400_000;
const WEEK = 7 * DAY;
export const ACTIVITY_WEEKS = 12;

export interface ActivityWeek {
  /** Start of the week (Monday 00:00 UTC), ms. */
  week: number;
  statuses: number;
  logins: number;
  registrations: number;
}

/** Monday 00:00 UTC of the week containing `ms` (1970-01-01 was a Thursday). */
export function weekStart(ms: number): number {
  const day = Math.floor(ms / DAY);
  const sinceMonday = (((day + 3) % 7) + 7) % 7;
  return (day - sinceMonday) * DAY;
}

/**
 * The last 12 calendar weeks, current week first: local posts written, distinct users active
 * (`logins`, from user_activity_days) and local sign-ups.
 */
export function getInstanceActivity(app: App): ActivityWeek[] {
  const current = weekStart(app.now());
  const origin = current - (ACTIVITY_WEEKS - 1) * WEEK;
  const statuses = localStatusesByWeek(app.db, origin, app.ids.floor(origin), WEEK);
  const logins = loginsByWeek(app.db, origin, WEEK);
  const registrations = registrationsByWeek(app.db, origin, WEEK);
  const out: ActivityWeek[] = [];
  for (let i = 0; i < ACTIVITY_WEEKS; i++) {
    const bucket = ACTIVITY_WEEKS - 1 - i;
    out.push({
      week: current - i * WEEK,
      statuses: statuses.get(bucket) ?? 0,
      logins: logins.get(bucket) ?? 0,
      registrations: registrations.get(bucket) ?? 0,
    });
  }
  return out;
}
