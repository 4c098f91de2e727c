import type { App } from "../app.ts";
import { tx } from "../db/db.ts";
import { queueStats } from "../jobs/job-store.ts";
import {
  countInboxActivities,
  type DashboardSample,
  deleteDashboardSamplesBefore,
  listDashboardSamples,
  upsertDashboardSample,
} from "../storage/dashboard-samples.ts";
import { storageUse } from "./storage-prune.ts";

// The admin dashboard's figures over time that no table keeps per day (issue 14 part 5): queue
// depth, storage, deliveries and inbox traffic, sampled once an hour into dashboard_samples and
// kept 90 days. Deliveries are counted in memory between samples (app.metrics.takeDeliveries):
// those of an hour in which the server stopped are lost, which a chart of days can bear.

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
export const DASHBOARD_SAMPLE_TASK = "dashboard.sample";
export const SAMPLE_RETENTION_MS = 90 * DAY;

export function sampleDashboard(app: App): DashboardSample {
  const now = app.now();
  const at = Math.floor(now / HOUR) * HOUR;
  const queues = queueStats(app.db, now);
  const use = storageUse(app);
  // The task runs hourly (its schedule persists across restarts): the inbox of the last hour.
  const since = now - HOUR;
  const sample: DashboardSample = {
    at,
    queueDepth: queues.reduce((n, q) => n + q.due + q.scheduled + q.running, 0),
    deadJobs: queues.reduce((n, q) => n + q.dead, 0),
    databaseBytes: use.databaseBytes,
    mediaBytes: use.mediaBytes,
    deliveries: app.metrics.takeDeliveries(),
    inbox: countInboxActivities(app.db, since, now),
  };
  tx(app.db, () => {
    upsertDashboardSample(app.db, sample);
    deleteDashboardSamplesBefore(app.db, now - SAMPLE_RETENTION_MS);
  });
  return sample;
}

export function registerDashboardSampler(app: App): void {
  app.jobs.every(DASHBOARD_SAMPLE_TASK, HOUR, (a) => void sampleDashboard(a));
}

export interface DailySamples {
  /** UTC midnight, ms. */
  day: number;
  deliveries: number;
  inbox: number;
  /** The day's highest queue depth. */
  queueDepth: number;
  /** The day's last figures. */
  databaseBytes: number;
  mediaBytes: number;
}

/** The samples of [first, last] folded into days; days without a sample are absent. */
export function dailySamples(app: App, first: number, last: number): DailySamples[] {
  const out = new Map<number, DailySamples>();
  for (const s of listDashboardSamples(app.db, first)) {
    const day = Math.floor(s.at / DAY) * DAY;
    if (day > last) break;
    const d = out.get(day) ?? { day, deliveries: 0, inbox: 0, queueDepth: 0, databaseBytes: 0, mediaBytes: 0 };
    d.deliveries += s.deliveries;
    d.inbox += s.inbox;
    d.queueDepth = Math.max(d.queueDepth, s.queueDepth);
    d.databaseBytes = s.databaseBytes;
    d.mediaBytes = s.mediaBytes;
    out.set(day, d);
  }
  return [...out.values()];
}
