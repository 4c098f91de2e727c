import { test, type TestContext } from "node:test";
import assert from "node:assert/strict";
import Database from "better-sqlite3";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { App } from "../../src/app.ts";
import { loadConfig } from "../../src/config/config.ts";
import { type Row, num } from "../../src/db/db.ts";
import { PermanentJobError } from "../../src/errors.ts";
import { sha256Hex } from "../../src/lib/crypto.ts";
import { closeApp, createApp } from "../../src/main.ts";
import { databasePath, initDataDir } from "../../src/services/init.ts";
import { CLI_APP, ensureBuiltinApp, issueToken } from "../../src/services/tokens.ts";
import { createUser } from "../../src/services/users.ts";
import { insertGrant } from "../../src/storage/grants.ts";
import { deliveryBackoffMs } from "../../src/federation/outbox/jobs.ts";
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
    /** A second connection: it sees only what the app has committed. */
    observer(): Database.Database {
      const db = new Database(databasePath(dataDir), { readonly: true });
      t.after(() => db.close());
      return db;
    },
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

test("a job kind may set its own backoff (deliveries: attempt⁴ + 15 s + jitter)", async (t) => {
  const inst = instance(t);
  const app = inst.open();
  app.jobs.register("test.custom", () => {
    throw new Error("later");
  }, { backoff: (attempts) => attempts * 1000 });
  app.jobs.enqueue("test.custom", {});
  await app.jobs.drain();
  assert.equal(num(jobRow(app, "test.custom")!.run_at) - inst.clock.now, 1000);
  // Mastodon's delivery schedule: attempt⁴ + 15 s, jitter below 10·(attempt + 1) s.
  for (const [attempts, min] of [[1, 16], [5, 640], [16, 65_551]] as const) {
    const ms = deliveryBackoffMs(attempts);
    assert.ok(ms >= min * 1000 && ms < (min + 10 * (attempts + 1)) * 1000, `attempt ${attempts}: ${ms}`);
  }
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

/** A scratch table the transactional test jobs write to: their effects. */
function effects(app: App) {
  app.db.exec("CREATE TABLE IF NOT EXISTS test_effects (job TEXT NOT NULL)");
  return {
    add: (job: string) => app.db.prepare("INSERT INTO test_effects (job) VALUES (?)").run(job),
    list: () => (app.db.prepare("SELECT job FROM test_effects ORDER BY rowid").all() as Row[]).map((r) => r.job),
  };
}

test("transactional jobs run as one batch: one commit holds their effects and their deletion", async (t) => {
  const inst = instance(t);
  const app = inst.open();
  const fx = effects(app);
  const other = inst.observer();
  const seenByOthers: number[] = [];
  app.jobs.register(
    "test.effect",
    (a, payload: { n: number }, job) => {
      assert.equal(a.db.inTransaction, true);
      assert.equal(job.attempts, 1);
      fx.add(`job ${payload.n}`);
      // Nothing of the batch is committed while it runs: not the effects, not the deletions.
      seenByOthers.push(Number((other.prepare("SELECT count(*) AS n FROM test_effects").get() as { n: number }).n));
      assert.ok(other.prepare("SELECT 1 FROM jobs WHERE name = 'test.effect'").get(), "jobs still there for others");
    },
    { queue: "effects", transactional: true },
  );
  for (let n = 1; n <= 5; n++) app.jobs.enqueue("test.effect", { n });
  assert.equal(jobRow(app, "test.effect")!.queue, "effects", "enqueued in the handler's queue");

  await app.jobs.drain();
  assert.deepEqual(fx.list(), ["job 1", "job 2", "job 3", "job 4", "job 5"], "run in enqueue order");
  assert.deepEqual(seenByOthers, [0, 0, 0, 0, 0]);
  assert.equal(Number((other.prepare("SELECT count(*) AS n FROM test_effects").get() as { n: number }).n), 5);
  assert.equal(jobRow(app, "test.effect"), undefined, "deleted in the same commit");
});

test("a failing job in a transactional batch is rolled back alone and retried; the others are kept", async (t) => {
  const inst = instance(t);
  const app = inst.open();
  const fx = effects(app);
  let failing = true;
  app.jobs.register(
    "test.effect",
    (_a, payload: { n: number }) => {
      fx.add(`job ${payload.n}`);
      if (payload.n === 2 && failing) throw new Error("job 2 broke");
    },
    { transactional: true },
  );
  for (let n = 1; n <= 3; n++) app.jobs.enqueue("test.effect", { n });

  await app.jobs.drain();
  assert.deepEqual(fx.list(), ["job 1", "job 3"], "the failing job's own write was rolled back");
  const rows = app.db.prepare("SELECT * FROM jobs WHERE name = 'test.effect'").all() as Row[];
  assert.equal(rows.length, 1);
  assert.deepEqual(JSON.parse(rows[0].payload as string), { n: 2 });
  assert.equal(num(rows[0].attempts), 1);
  assert.equal(rows[0].last_error, "job 2 broke");
  assert.equal(rows[0].locked_until, null);
  const delay = num(rows[0].run_at) - inst.clock.now;
  assert.ok(delay >= 11_250 && delay <= 18_750, `backoff ~15 s, got ${delay}`);

  failing = false;
  inst.clock.now = num(rows[0].run_at);
  await app.jobs.drain();
  assert.deepEqual(fx.list(), ["job 1", "job 3", "job 2"]);
  assert.equal(jobRow(app, "test.effect"), undefined);
});

test("a transactional job that breaks the whole transaction loses nothing of the others", async (t) => {
  const inst = instance(t);
  const app = inst.open();
  const fx = effects(app);
  app.jobs.register(
    "test.effect",
    (a, payload: { n: number }) => {
      fx.add(`job ${payload.n}`);
      if (payload.n === 2) a.db.exec("ROLLBACK"); // ends the batch's transaction, not just its savepoint
    },
    { transactional: true },
  );
  for (let n = 1; n <= 3; n++) app.jobs.enqueue("test.effect", { n }, { maxAttempts: 1 });

  await app.jobs.drain();
  assert.deepEqual(fx.list(), ["job 1", "job 3"]);
  assert.equal(jobRow(app, "test.effect"), undefined);
  const dead = deadRow(app, "test.effect")!;
  assert.deepEqual(JSON.parse(dead.payload as string), { n: 2 });
  assert.equal(num(dead.attempts), 1);
});

test("transactional handlers must be synchronous; follow-up jobs they enqueue commit with them", async (t) => {
  const inst = instance(t);
  const app = inst.open();
  assert.throws(() => app.jobs.register("test.async", async () => {}, { transactional: true }), /must be synchronous/);
  app.jobs.register("test.sneaky", () => Promise.resolve(), { transactional: true });
  const fx = effects(app);
  app.jobs.register(
    "test.chain",
    (a, payload: { left: number }) => {
      fx.add(`left ${payload.left}`);
      if (payload.left > 0) a.jobs.enqueue("test.chain", { left: payload.left - 1 });
    },
    { transactional: true },
  );
  app.jobs.enqueue("test.sneaky", {});
  app.jobs.enqueue("test.chain", { left: 2 });
  await app.jobs.drain();
  assert.match(deadRow(app, "test.sneaky")!.last_error as string, /returned a promise/);
  assert.deepEqual(fx.list(), ["left 2", "left 1", "left 0"]);
  assert.equal(jobRow(app, "test.chain"), undefined);
});

test("the running runner batches transactional jobs and claims several ordinary jobs at once", async (t) => {
  const inst = instance(t);
  const app = inst.open();
  const fx = effects(app);
  const other = inst.observer();
  const seenByOthers: number[] = [];
  let batchDone!: () => void;
  const batched = new Promise<void>((r) => (batchDone = r));
  app.jobs.register(
    "test.effect",
    (_a, payload: { n: number }) => {
      fx.add(`job ${payload.n}`);
      seenByOthers.push(Number((other.prepare("SELECT count(*) AS n FROM test_effects").get() as { n: number }).n));
      if (payload.n === 4) batchDone();
    },
    { transactional: true },
  );
  let release!: () => void;
  const released = new Promise<void>((r) => (release = r));
  let concurrent = 0;
  let enteredAll!: () => void;
  const allEntered = new Promise<void>((r) => (enteredAll = r));
  app.jobs.register("test.slow", async () => {
    if (++concurrent === 3) enteredAll();
    await released;
  });
  for (let n = 1; n <= 3; n++) app.jobs.enqueue("test.slow", { n });
  for (let n = 1; n <= 4; n++) app.jobs.enqueue("test.effect", { n });
  app.jobs.start();
  await batched;
  assert.deepEqual(seenByOthers, [0, 0, 0, 0], "the four enqueued together ran in one transaction");
  await allEntered; // the three ordinary jobs run at the same time
  release();
  await app.jobs.stop();
  const left = app.db.prepare("SELECT name FROM jobs WHERE name LIKE 'test.%'").all() as Row[];
  assert.deepEqual(left, [], "all finished, and recorded before stop() returned");
});

test("enqueueItem adds to a waiting job with room, never to a claimed, full or later one", async (t) => {
  const inst = instance(t);
  const app = inst.open();
  const runs: unknown[][] = [];
  app.jobs.register("test.batch", (_a, p: { items: unknown[] }) => void runs.push(p.items));
  const items = () => (app.db.prepare("SELECT payload FROM jobs WHERE name = 'test.batch' ORDER BY id").all() as Row[]).map((r) => JSON.parse(r.payload as string).items);
  for (const i of [1, 2, 3, 4, 5]) app.jobs.enqueueItem("test.batch", i, { maxItems: 2 });
  assert.deepEqual(items(), [[1, 2], [3, 4], [5]]);
  // A job due later (a retry) takes nothing new.
  app.db.prepare("DELETE FROM jobs").run();
  app.jobs.enqueue("test.batch", { items: ["later"] }, { runAt: inst.clock.now + MINUTE });
  app.jobs.enqueueItem("test.batch", 6, { maxItems: 10 });
  assert.deepEqual(items(), [["later"], [6]]);
  // Once claimed (running, or failed and waiting), a job is closed too.
  app.db.prepare("UPDATE jobs SET attempts = 1 WHERE run_at <= ?").run(inst.clock.now);
  app.jobs.enqueueItem("test.batch", 7, { maxItems: 10 });
  assert.deepEqual(items(), [["later"], [6], [7]]);
  app.db.prepare("UPDATE jobs SET attempts = 0").run();
  await app.jobs.drain();
  assert.deepEqual(runs, [[6], [7]]);
});
