import { type DB, type Row, num, stmt } from "../db/db.ts";

// dashboard_samples (migration 0049): the admin dashboard's hourly figures.

export interface DashboardSample {
  /** Start of the hour, UTC ms. */
  at: number;
  queueDepth: number;
  deadJobs: number;
  databaseBytes: number;
  mediaBytes: number;
  deliveries: number;
  inbox: number;
}

const rowToSample = (r: Row): DashboardSample => ({
  at: num(r.at),
  queueDepth: num(r.queue_depth),
  deadJobs: num(r.dead_jobs),
  databaseBytes: num(r.database_bytes),
  mediaBytes: num(r.media_bytes),
  deliveries: num(r.deliveries),
  inbox: num(r.inbox),
});

/** A second sample in the same hour (a restart) adds its traffic to the first and takes its state. */
export function upsertDashboardSample(db: DB, s: DashboardSample): void {
  stmt(
    db,
    `INSERT INTO dashboard_samples (at, queue_depth, dead_jobs, database_bytes, media_bytes, deliveries, inbox)
     VALUES (@at, @queueDepth, @deadJobs, @databaseBytes, @mediaBytes, @deliveries, @inbox)
     ON CONFLICT (at) DO UPDATE SET queue_depth = excluded.queue_depth, dead_jobs = excluded.dead_jobs,
       database_bytes = excluded.database_bytes, media_bytes = excluded.media_bytes,
       deliveries = deliveries + excluded.deliveries, inbox = inbox + excluded.inbox`,
  ).run(s);
}

export function listDashboardSamples(db: DB, since: number): DashboardSample[] {
  return (stmt(db, "SELECT * FROM dashboard_samples WHERE at >= ? ORDER BY at").all(since) as Row[]).map(rowToSample);
}

export function deleteDashboardSamplesBefore(db: DB, before: number): number {
  return stmt(db, "DELETE FROM dashboard_samples WHERE at < ?").run(before).changes;
}

/** Activities received in [from, to) (inbox_activity_ids keeps a week of them). */
export function countInboxActivities(db: DB, from: number, to: number): number {
  return num((stmt(db, "SELECT count(*) AS n FROM inbox_activity_ids WHERE received_at >= ? AND received_at < ?").get(from, to) as Row).n);
}
