// The admin dashboard's hourly samples (issue 14 part 5): state at the time, deliveries counted
// between samples, a second sample in the same hour adds up, 90 days kept.
import assert from "node:assert/strict";
import { test } from "node:test";
import { dailySamples, sampleDashboard } from "../../src/ops/dashboard-samples.ts";
import { listDashboardSamples } from "../../src/storage/dashboard-samples.ts";
import { startTestServer } from "../helpers/server.ts";

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

test("hourly samples: queue depth and storage as they are, deliveries since the last sample, 90 days kept", async (t) => {
  const s = await startTestServer();
  t.after(() => s.close());
  const t0 = Date.UTC(2026, 0, 10, 10, 30);
  s.app.now = () => t0 - 100 * DAY;
  sampleDashboard(s.app);
  assert.equal(listDashboardSamples(s.app.db, 0).length, 1);

  s.app.now = () => t0;
  const alice = await s.user("alice");
  await s.api(alice, "POST", "/api/v1/statuses", { status: "queued work" });
  for (let i = 0; i < 3; i++) s.app.metrics.job("federation.deliver", "deliveries", "done");
  s.app.metrics.job("federation.deliver", "deliveries", "retry");
  s.app.metrics.job("status.fanout", "feeds", "done");
  const first = sampleDashboard(s.app);
  assert.equal(first.at, Date.UTC(2026, 0, 10, 10));
  assert.equal(first.deliveries, 3, "done deliveries only");
  assert.ok(first.queueDepth >= 1, "the post's jobs wait (jobs do not run on their own in tests)");
  assert.ok(first.databaseBytes > 100_000);
  // The sample 100 days back is gone.
  assert.deepEqual(listDashboardSamples(s.app.db, 0).map((x) => x.at), [first.at]);

  // Later in the same hour: traffic adds up, the state is the latest.
  await s.drainJobs();
  s.app.metrics.job("federation.deliver", "deliveries", "done");
  s.app.now = () => t0 + 20 * 60_000;
  const second = sampleDashboard(s.app);
  assert.equal(second.queueDepth, 0);
  const [row] = listDashboardSamples(s.app.db, 0);
  assert.deepEqual([row.deliveries, row.queueDepth], [4, 0]);

  // Two hours later, with work queued again: the day shows its highest depth and all its traffic.
  s.app.now = () => t0 + 2 * HOUR;
  await s.api(alice, "POST", "/api/v1/statuses", { status: "more work" });
  s.app.metrics.job("federation.deliver", "deliveries", "done");
  const third = sampleDashboard(s.app);
  assert.ok(third.queueDepth >= 1);
  const days = dailySamples(s.app, Date.UTC(2026, 0, 9), Date.UTC(2026, 0, 10));
  assert.deepEqual(days.map((d) => [d.day, d.deliveries, d.queueDepth, d.databaseBytes]), [[Date.UTC(2026, 0, 10), 5, third.queueDepth, third.databaseBytes]]);
});
