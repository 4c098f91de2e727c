import { test, type TestContext } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { App } from "../../src/app.ts";
import { loadConfig } from "../../src/config/config.ts";
import { type Row, num } from "../../src/db/db.ts";
import { PermanentJobError } from "../../src/errors.ts";
import { sha256Hex } from "../../src/lib/crypto.ts";
import { closeApp, createApp } from "../../src/main.ts";
import { initDataDir } from "../../src/services/init.ts";
import { CLI_APP, ensureBuiltinApp, issueToken } from "../../src/services/tokens.ts";
import { createUser } from "../../src/services/users.ts";
import { insertGrant } from "../../src/storage/grants.ts";
import { findTokenById, revokeToken } from "../../src/storage/tokens.ts";

const MINUTE = 60_000;

/** A data dir and a hand-driven clock; apps made from it share both, as after a restart. */
function instance(t: TestContext) {
  const dataDir = mkdtempSync(join(tmpdir(), "roost-jobs-"));
  initDataDir(dataDir, { domain: "jobs.test", protocol: "http" });
  const clock = { now: Date.UTC(2030, 0, 1) };
  const apps: App[] = [];
  t.after(async () => {
    for (const a of apps) await closeApp(a);
    rmSync(dataDir, { recursive: true, force: true });
  });
  return {
    clock,
    open(): App {
      const app = createApp(loadConfig(dataDir, { logLevel: "silent", jobsAutorun: false, poolIdleMs: 200 }, {}), {
        now: () => clock.now,
      });
      apps.push(app);
      return app;
    },
  };
}

const jobRow = (app: App, name: string) => app.db.prepare("SELECT * FROM jobs WHERE name = ?").get(name) as Row | undefined;
const deadRow = (app: App, name: string) => app.db.prepare("SELECT * FROM dead_jobs WHERE name = ?").get(name) as Row | undefined;

test("a job enqueued before a restart runs after it", async (t) => {
  const inst = instance(t);
  const first = inst.open();
  first.jobs.enqueue("test.record", { n: 1 });
  await closeApp(first);
  inst.clock.now += 1000; // a restart takes time (ids are time-based)

  const second = inst.open();
  const seen: unknown[] = [];
  second.jobs.register("test.record", (_app, payload, job) => {
    seen.push(payload);
    assert.equal(job.attempts, 1);
  });
  await second.jobs.drain();
  assert.deepEqual(seen, [{ n: 1 }]);
  assert.equal(jobRow(second, "test.record"), undefined, "a finished job is deleted");
});

test("a failing job is retried with growing backoff, then dead-lettered after max attempts", async (t) => {
  const inst = instance(t);
  const app = inst.open();
  let runs = 0;
  app.jobs.register("test.flaky", () => {
    runs++;
    throw new Error(`boom ${runs}`);
  });
  app.jobs.enqueue("test.flaky", {}, { maxAttempts: 3 });

  await app.jobs.drain();
  let row = jobRow(app, "test.flaky")!;
  assert.equal(num(row.attempts), 1);
  assert.equal(row.last_error, "boom 1");
  assert.equal(row.locked_until, null);
  const firstDelay = num(row.run_at) - inst.clock.now;
  assert.ok(firstDelay >= 11_250 && firstDelay <= 18_750, `first backoff ~15 s, got ${firstDelay}`);

  await app.jobs.drain(); // not due yet: nothing runs
  assert.equal(runs, 1);

  inst.clock.now = num(row.run_at);
  await app.jobs.drain();
  row = jobRow(app, "test.flaky")!;
  assert.equal(num(row.attempts), 2);
  assert.equal(row.last_error, "boom 2");
  const secondDelay = num(row.run_at) - inst.clock.now;
  assert.ok(secondDelay >= 22_500 && secondDelay <= 37_500, `second backoff ~30 s, got ${secondDelay}`);

  inst.clock.now = num(row.run_at);
  await app.jobs.drain();
  assert.equal(runs, 3);
  assert.equal(jobRow(app, "test.flaky"), undefined);
  const dead = deadRow(app, "test.flaky")!;
  assert.equal(num(dead.attempts), 3);
  assert.equal(dead.last_error, "boom 3");
  assert.equal(dead.payload, "{}");
  assert.equal(num(dead.failed_at), inst.clock.now);
});

test("PermanentJobError and unknown job names go straight to dead_jobs", async (t) => {
  const inst = instance(t);
  const app = inst.open();
  app.jobs.register("test.hopeless", () => {
    throw new PermanentJobError("remote said 410");
  });
  app.jobs.enqueue("test.hopeless", { inbox: "https://gone.example/inbox" });
  app.jobs.enqueue("test.nobody-handles-this", {});
  await app.jobs.drain();
  const dead = deadRow(app, "test.hopeless")!;
  assert.equal(num(dead.attempts), 1);
  assert.equal(dead.last_error, "remote said 410");
  assert.deepEqual(JSON.parse(dead.payload as string), { inbox: "https://gone.example/inbox" });
  assert.equal(deadRow(app, "test.nobody-handles-this")!.last_error, "no handler for job test.nobody-handles-this");
  assert.equal((app.db.prepare("SELECT count(*) AS n FROM jobs WHERE name LIKE 'test.%'").get() as Row).n, 0n);
});

test("a periodic task is persisted and not re-run before its period, even across a restart", async (t) => {
  const inst = instance(t);
  const start = inst.clock.now;
  let ticks = 0;
  const first = inst.open();
  first.jobs.every("test.tick", 10 * MINUTE, () => {
    ticks++;
  });
  await first.jobs.drain();
  assert.equal(ticks, 1, "runs at first start");
  const task = first.db.prepare("SELECT * FROM periodic_tasks WHERE name = 'test.tick'").get() as Row;
  assert.equal(num(task.last_run_at), start);
  assert.equal(num(task.next_run_at), start + 10 * MINUTE);

  inst.clock.now += 5 * MINUTE;
  await first.jobs.drain();
  assert.equal(ticks, 1, "not before its period");
  await closeApp(first);
  inst.clock.now += 1000;

  const second = inst.open();
  second.jobs.every("test.tick", 10 * MINUTE, () => {
    ticks++;
  });
  await second.jobs.drain();
  assert.equal(ticks, 1, "a restart does not reset the schedule");

  inst.clock.now = start + 10 * MINUTE;
  await second.jobs.drain();
  assert.equal(ticks, 2);
  const after = second.db.prepare("SELECT next_run_at FROM periodic_tasks WHERE name = 'test.tick'").get() as Row;
  assert.equal(num(after.next_run_at), start + 20 * MINUTE);
});

test("the runner runs jobs by itself, and stop() waits for the step in progress", async (t) => {
  const inst = instance(t);
  const app = inst.open();
  let entered!: () => void;
  const running = new Promise<void>((r) => (entered = r));
  let release!: () => void;
  const released = new Promise<void>((r) => (release = r));
  let finished = false;
  app.jobs.register("test.slow", async () => {
    entered();
    await released;
    finished = true;
  });
  app.jobs.start();
  app.jobs.enqueue("test.slow", {});
  await running;

  let stopped = false;
  const stopping = app.jobs.stop().then(() => (stopped = true));
  await new Promise((r) => setImmediate(r));
  assert.equal(stopped, false, "stop() waits while the job runs");
  release();
  await stopping;
  assert.equal(finished, true);
  assert.equal(jobRow(app, "test.slow"), undefined, "its completion was recorded before stop() returned");
});

test("oauth.cleanup deletes revoked tokens and used or expired grants, and keeps live ones", async (t) => {
  const inst = instance(t);
  const app = inst.open();
  const { user } = await createUser(app, { username: "alice", email: "alice@example.test", password: "correct horse battery" });
  const cli = ensureBuiltinApp(app, CLI_APP);
  const live = issueToken(app, { userId: user.id, applicationId: cli.id, scopes: ["read"] });
  const revoked = issueToken(app, { userId: user.id, applicationId: cli.id, scopes: ["read"] });
  revokeToken(app.db, revoked.id, inst.clock.now);

  const grant = (label: string, expiresAt: number, revokedAt: number | null) => {
    const id = app.ids.next();
    insertGrant(app.db, {
      id,
      applicationId: cli.id,
      userId: user.id,
      codeHash: sha256Hex(label),
      redirectUri: "urn:ietf:wg:oauth:2.0:oob",
      scopes: ["read"],
      codeChallenge: null,
      codeChallengeMethod: null,
      expiresAt,
      revokedAt,
      createdAt: inst.clock.now,
    });
    if (revokedAt !== null) app.db.prepare("UPDATE oauth_grants SET revoked_at = ? WHERE id = ?").run(revokedAt, BigInt(id));
    return id;
  };
  const liveGrant = grant("live", inst.clock.now + 10 * MINUTE, null);
  grant("expired", inst.clock.now - 1, null);
  grant("used", inst.clock.now + 10 * MINUTE, inst.clock.now);

  await app.jobs.drain(); // periodic tasks run at first start
  assert.ok(findTokenById(app.db, live.id), "the live token stays");
  assert.equal(findTokenById(app.db, revoked.id), undefined, "the revoked token is gone");
  const grants = app.db.prepare("SELECT id FROM oauth_grants").all() as Row[];
  assert.deepEqual(grants.map((r) => String(r.id)), [liveGrant]);
});
