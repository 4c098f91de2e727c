// Issue 12's scheduling budget: 1,000 scheduled posts due at the same moment are all published
// within 60 s. 40 users (25 posts a day each is the limit) who all follow each other schedule 25
// posts each for one instant shortly after the server starts; the bench then watches the
// database: each post's lag is its status's created_at minus the due time.
import Database from "better-sqlite3";
import { databasePath } from "../../src/services/init.ts";
import { followAccount } from "../../src/services/follows.ts";
import { scheduleStatus, SCHEDULED_DAILY_LIMIT } from "../../src/services/scheduled-statuses.ts";
import { createUser } from "../../src/services/users.ts";
import { quantile } from "../lib/stats.ts";
import type { Check, Metric, RunSummary, Scenario } from "../scenario.ts";

const POSTS = 1000;
const USERS = POSTS / SCHEDULED_DAILY_LIMIT;
const BUDGET_S = 60;
/** Time from the end of seeding to the due moment: the server starts and settles meanwhile. */
const LEAD_MS = 30_000;
const GIVE_UP_MS = 120_000;
const MIN = 60_000;

interface Seed {
  dueAt: number;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, Math.max(0, ms)));

export const scheduled: Scenario<Seed> = {
  name: "scheduled",
  description: `${POSTS} scheduled posts by ${USERS} users who follow each other, all due at the same moment (one measurement per run: --trials does not apply)`,
  async seed(app) {
    const users = await Promise.all(
      Array.from({ length: USERS }, (_, i) => createUser(app, { username: `sched${i}`, email: `sched${i}@bench.test`, password: "bench password 1" })),
    );
    for (const a of users) for (const b of users) if (a !== b) followAccount(app, a.account, b.account, {});
    // Scheduling needs 5 minutes' notice: the seed's clock runs 6 minutes behind, so the due
    // moment is only LEAD_MS ahead in real time. (The server itself runs on the real clock.)
    const realNow = app.now;
    app.now = () => realNow() - 6 * MIN;
    const dueAt = realNow() + LEAD_MS;
    try {
      for (const [i, { account, user }] of users.entries()) {
        for (let k = 0; k < SCHEDULED_DAILY_LIMIT; k++) {
          const text = `Scheduled post ${k} of ${account.username}, planned long ago #bench${i % 5}`;
          scheduleStatus(app, { account, user }, { text, visibility: "public", scheduledAt: new Date(dueAt).toISOString() }, { applicationId: null });
        }
      }
    } finally {
      app.now = realNow;
    }
    if (Date.now() > dueAt - 10_000) throw new Error("seeding took too long: the posts would be due before the server is up");
    return { dueAt };
  },
  targets: () => [],
  async measure({ dataDir, seed }) {
    const db = new Database(databasePath(dataDir), { readonly: true });
    db.pragma("busy_timeout = 5000");
    try {
      const upBeforeDue = Date.now() < seed.dueAt;
      if (!upBeforeDue) console.error("scheduled: the server started after the due moment (measuring publication at start)");
      console.error(`scheduled: ${POSTS} posts due in ${((seed.dueAt - Date.now()) / 1000).toFixed(1)} s`);
      await sleep(seed.dueAt - Date.now());
      const pending = db.prepare("SELECT count(*) AS n FROM scheduled_statuses").pluck();
      const feedJobs = db.prepare("SELECT count(*) AS n FROM jobs WHERE name = 'status.fanout'").pluck();
      let allPublishedAt: number | null = null;
      let fannedOutAt: number | null = null;
      const deadline = seed.dueAt + GIVE_UP_MS;
      while (Date.now() < deadline && fannedOutAt === null) {
        if (allPublishedAt === null && Number(pending.get()) === 0) allPublishedAt = Date.now();
        if (allPublishedAt !== null && Number(feedJobs.get()) === 0) fannedOutAt = Date.now();
        await sleep(20);
      }
      const created = (db.prepare("SELECT created_at FROM statuses WHERE local = 1").pluck().all() as number[]).map(Number);
      const lags = created.map((c) => (c - seed.dueAt) / 1000);
      const metrics: Metric[] = [
        { name: "posts published", value: created.length, unit: `of ${POSTS}` },
        { name: "posts still scheduled at the end", value: Number(pending.get()), unit: "" },
        { name: "last post published after its time", value: lags.length ? Math.max(...lags) : null, unit: "s" },
        { name: "first post published after its time", value: lags.length ? Math.min(...lags) : null, unit: "s" },
        { name: "median lag", value: lags.length ? quantile(lags, 0.5) : null, unit: "s" },
        { name: "all scheduled rows gone after", value: allPublishedAt === null ? null : (allPublishedAt - seed.dueAt) / 1000, unit: "s" },
        { name: "fan-out to 39 homes each done after", value: fannedOutAt === null ? null : (fannedOutAt - seed.dueAt) / 1000, unit: "s" },
        { name: "server up before the due moment", value: upBeforeDue ? 1 : 0, unit: "(1 = yes)" },
      ];
      return { metrics };
    } finally {
      db.close();
    }
  },
  checks(summary: RunSummary): Check[] {
    const get = (n: string) => summary.metrics.find((m) => m.name === n)?.value ?? null;
    const published = get("posts published");
    const last = get("last post published after its time");
    const name = `${POSTS} posts due at once all published within ${BUDGET_S} s`;
    if (published === null || last === null) return [{ name, ok: null, detail: "not measured" }];
    return [
      {
        name,
        ok: published === POSTS && last < BUDGET_S,
        detail: `${published} published, the last ${last.toFixed(2)} s after its time (median ${get("median lag")?.toFixed(2)} s)`,
      },
      { name: "each post published once", ok: published === POSTS, detail: `${published} statuses for ${POSTS} scheduled posts` },
    ];
  },
};
