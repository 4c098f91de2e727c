// Durable commits off the event loop (db/commit-sync.ts) and WAL checkpoints in a thread
// (db/checkpointer.ts): a write is answered only after the WAL's fsync, which runs on
// libuv's pool and is shared by the writes of the moment; reads never wait for it; the
// server's connection no longer checkpoints inside its commits.
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openDatabase, tx } from "../../src/db/db.ts";
import { deferCommitSync } from "../../src/db/commit-sync.ts";
import { createLog } from "../../src/lib/log.ts";
import { BACKSTOP_AUTOCHECKPOINT, startCheckpointer } from "../../src/db/checkpointer.ts";
import { startTestServer } from "../helpers/server.ts";

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function tempDb() {
  const dir = mkdtempSync(join(tmpdir(), "roost-commit-sync-"));
  const db = openDatabase(join(dir, "roost.db"));
  db.exec("CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT NOT NULL)");
  return { db, dir, wal: join(dir, "roost.db-wal"), done: () => (db.close(), rmSync(dir, { recursive: true, force: true })) };
}

test("flushes share one sync at a time, each covers the commits before it, and the loop stays free", async () => {
  const t = tempDb();
  try {
    const started: { walBytes: number }[] = [];
    let release: (() => void) | undefined;
    const sync = deferCommitSync(t.db, {
      syncFile: async (path) => {
        started.push({ walBytes: statSync(path).size });
        await new Promise<void>((r) => (release = r));
      },
    });
    assert.equal(t.db.pragma("synchronous", { simple: true }), 1n, "NORMAL: the commit itself no longer fsyncs");

    t.db.prepare("INSERT INTO notes (body) VALUES ('first')").run();
    const walAfterFirst = statSync(t.wal).size;
    const order: string[] = [];
    const a = sync.flush().then(() => order.push("a"));
    assert.equal(sync.syncs(), 1);
    assert.equal(started[0].walBytes, walAfterFirst, "the first sync began after the first commit");

    // Two more writes commit while that sync runs: they share the next sync, which starts
    // only once the first is over (it may have missed their frames).
    tx(t.db, () => t.db.prepare("INSERT INTO notes (body) VALUES (?)").run("x".repeat(20_000)));
    const walAfterSecond = statSync(t.wal).size;
    const b = sync.flush().then(() => order.push("b"));
    const c = sync.flush().then(() => order.push("c"));
    assert.equal(sync.syncs(), 1, "no second sync while one runs");

    // The event loop is free meanwhile: a timer fires while all three wait.
    await sleep(5).then(() => order.push("timer"));
    assert.deepEqual(order, ["timer"]);

    release!();
    await a;
    await sleep(0);
    assert.equal(sync.syncs(), 2, "the waiting flushes started one shared sync");
    assert.ok(started[1].walBytes >= walAfterSecond && walAfterSecond > walAfterFirst, "it began after the second commit");
    assert.deepEqual(order, ["timer", "a"], "b and c wait for their own sync");
    release!();
    await Promise.all([b, c]);
    assert.deepEqual(order, ["timer", "a", "b", "c"]);

    // Idle again: the next flush starts a sync at once.
    const d = sync.flush();
    assert.equal(sync.syncs(), 3);
    release!();
    await d;
  } finally {
    t.done();
  }
});

test("the real sync: fdatasync of the WAL, and no WAL file is no work", async () => {
  const t = tempDb();
  try {
    const sync = deferCommitSync(t.db);
    t.db.prepare("INSERT INTO notes (body) VALUES ('kept')").run();
    await sync.flush();
    assert.equal(sync.syncs(), 1);
    // A closed database has checkpointed and removed its WAL: flushing then is a no-op.
    const other = deferCommitSync(openDatabase(join(t.dir, "other.db")));
    await other.flush();
    assert.equal(other.syncs(), 1);
  } finally {
    t.done();
  }
});

test("the server answers a write only after its sync; a read meanwhile is not held up", async () => {
  const s = await startTestServer();
  let release: (() => void) | undefined;
  try {
    const alice = await s.user("alice");
    assert.ok(s.app.commits, "startServer defers the commits' sync");
    assert.equal(s.app.db.pragma("synchronous", { simple: true }), 1n);
    assert.equal(s.app.db.pragma("wal_autocheckpoint", { simple: true }), BigInt(BACKSTOP_AUTOCHECKPOINT));

    // The real sync: a post makes one, a read none.
    const before = s.app.commits.syncs();
    await s.api(alice, "POST", "/api/v1/statuses", { status: "durable" });
    assert.ok(s.app.commits.syncs() > before, "the post waited for a sync");
    const afterPost = s.app.commits.syncs();
    await s.api(alice, "GET", "/api/v1/timelines/home");
    assert.equal(s.app.commits.syncs(), afterPost, "a read does not sync");

    // A slow disk: the post's answer waits for the sync, the read's does not.
    let syncing = false;
    s.app.commits = deferCommitSync(s.app.db, {
      syncFile: async () => {
        syncing = true;
        await new Promise<void>((r) => (release = r));
      },
    });
    const order: string[] = [];
    const post = s.req(alice, "POST", "/api/v1/statuses", { status: "waits for the disk" }).then((r) => {
      order.push("post");
      return r;
    });
    while (!syncing) await sleep(5);
    const own = await s.req(alice, "GET", `/api/v1/accounts/${alice.id}/statuses`);
    order.push("read");
    assert.equal(own.status, 200);
    assert.equal(own.body[0].content, "<p>waits for the disk</p>", "committed (visible) before it is durable");
    assert.deepEqual(order, ["read"], "the post is not answered before its sync");
    release!();
    const res = await post;
    assert.equal(res.status, 200);
    assert.deepEqual(order, ["read", "post"]);

    // A refused write (422) wrote nothing: it is answered without a sync, even while the
    // disk is slow.
    const syncsBefore = s.app.commits.syncs();
    let held = true;
    s.app.commits = deferCommitSync(s.app.db, { syncFile: () => new Promise<void>((r) => (release = () => ((held = false), r()))) });
    const bad = await s.req(alice, "POST", "/api/v1/statuses", { status: "" });
    assert.equal(bad.status, 422);
    assert.equal(held, true);
    assert.equal(s.app.commits.syncs(), 0, "no sync for a write that wrote nothing");
    assert.ok(syncsBefore > 0);
  } finally {
    // A failed assertion must not leave a request waiting on a sync that never ends.
    s.app.commits = undefined;
    release?.();
    await s.close();
  }
});

test("checkpoints run in a thread after writes; the WAL restarts instead of growing; the thread leaves when idle", async () => {
  const t = tempDb();
  const checkpointer = startCheckpointer(t.db, createLog("silent"), { pollMs: 10, everyMs: 30, idleMs: 200 })!;
  try {
    assert.equal(t.db.pragma("wal_autocheckpoint", { simple: true }), BigInt(BACKSTOP_AUTOCHECKPOINT));
    assert.equal(checkpointer.stats().threadAlive, false, "no thread before the first write");
    const insert = t.db.prepare("INSERT INTO notes (body) VALUES (?)");
    const write = (n: number) => {
      for (let i = 0; i < n; i++) insert.run(`note ${i} ${"x".repeat(3000)}`);
    };
    write(300);
    const walBefore = statSync(t.wal).size;
    assert.ok(walBefore > 300 * 3000, `the WAL holds the writes (${walBefore} bytes): the connection did not checkpoint them`);
    while (checkpointer.stats().checkpoints === 0) await sleep(10);
    const first = checkpointer.stats();
    assert.equal(first.threadAlive, true);
    assert.equal(first.last?.ok, true);
    assert.equal(first.last?.checkpointed, first.last?.log, "every frame copied");
    assert.ok((first.last?.log ?? 0) >= 300);
    assert.equal((t.db.prepare("SELECT count(*) AS n FROM notes").get() as { n: bigint }).n, 300n);

    // The next writes start the WAL over: its file does not grow past what it was.
    write(100);
    assert.ok(statSync(t.wal).size <= walBefore, "the log restarted at its beginning");
    while (checkpointer.stats().checkpoints < 2) await sleep(10);

    // A quiet spell: the thread exits (no second isolate on an idle server).
    while (checkpointer.stats().threadAlive) await sleep(20);
    write(1);
    while (checkpointer.stats().checkpoints < 3) await sleep(10);
    assert.equal(checkpointer.stats().threadAlive, true, "and comes back with the next writes");
  } finally {
    await checkpointer.stop();
    assert.equal(checkpointer.stats().threadAlive, false);
    t.done();
  }
});

test("a checkpoint a reader holds back is tried again shortly, and completes once the reader is done", async () => {
  const t = tempDb();
  const checkpointer = startCheckpointer(t.db, createLog("silent"), { pollMs: 10, everyMs: 60_000, retryMs: 20, idleMs: 60_000 })!;
  const reader = openDatabase(join(t.dir, "roost.db"));
  try {
    t.db.prepare("INSERT INTO notes (body) VALUES ('before the reader')").run();
    // Another connection's read transaction keeps its snapshot: the frames written after it
    // cannot be copied while it lasts.
    reader.exec("BEGIN");
    assert.equal((reader.prepare("SELECT count(*) AS n FROM notes").get() as { n: bigint }).n, 1n);
    t.db.prepare("INSERT INTO notes (body) VALUES ('after the reader')").run();
    while (checkpointer.stats().partial < 3) await sleep(10);
    assert.equal(checkpointer.stats().checkpoints, 0, "nothing complete while the reader lasts");
    reader.exec("COMMIT");
    // Retried after retryMs, not after everyMs (a minute here).
    while (checkpointer.stats().checkpoints === 0) await sleep(10);
    const { last } = checkpointer.stats();
    assert.equal(last?.checkpointed, last?.log);
  } finally {
    reader.close();
    await checkpointer.stop();
    t.done();
  }
});
