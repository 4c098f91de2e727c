import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { statSync } from "node:fs";
import { join } from "node:path";
import { databasePath } from "../../src/services/init.ts";
import { eventually, type FakeActor, startFakeRemote } from "../helpers/fake-remote.ts";
import { freePort, ROOT, roost, serve, tempDir } from "./cli-helpers.ts";
import { postingLoad, queryDb, seedInstance } from "./ops-helpers.ts";

const AS = "https://www.w3.org/ns/activitystreams";

// Crash safety (issue 14 part 6): `serve` is killed with SIGKILL in the middle of a posting,
// favouriting, following and inbox load. After a restart everything the server acknowledged
// is there, and every delivery that was still pending goes out.
test("SIGKILL under load: every acknowledged post, favourite and follow survives; pending deliveries go out after the restart", async (t) => {
  const dir = tempDir(t);
  const dataDir = join(dir, "data");
  const port = await freePort();
  const followers = Array.from({ length: 6 }, (_, i) => `fan${i}`);
  const users = await seedInstance(dataDir, port, ["ann", "reader", ...followers]);
  const remote = await startFakeRemote();
  t.after(() => remote.close());
  const env = { ROOST_BACKUP_SCHEDULE: "off" };
  let server = await serve(["--data-dir", dataDir, "--port", String(port)], env);
  t.after(() => server.stop("SIGKILL"));
  const url = server.url;
  const annUri = `${url}/users/ann`;

  // A remote follower of ann: each of her posts is delivered to the remote server.
  const bob = remote.actor("bob");
  const follow = (actor: FakeActor, n: number) => ({ "@context": AS, id: `${actor.id}#follows/${n}`, type: "Follow", actor: actor.id, object: annUri });
  assert.equal((await remote.post(`${url}/users/ann/inbox`, follow(bob, 0), bob)).status, 202);
  await remote.waitFor((d) => d.body?.type === "Accept" && d.body.object?.actor === bob.id, 20_000);

  // The load: posts by ann; the reader favourites them; local fans follow ann over the API;
  // remote actors follow ann and like her posts through the inbox.
  const posts = postingLoad(url, [users.ann.token], { loops: 3, max: 600, prefix: "crash" });
  const favourited: string[] = [];
  const followed: string[] = [];
  const inboxFollows: string[] = [];
  const inboxLikes: { actor: string; uri: string }[] = [];
  let stop = false;
  const call = async (token: string, path: string) => {
    const res = await fetch(`${url}${path}`, { method: "POST", headers: { authorization: `Bearer ${token}` } });
    await res.arrayBuffer();
    return res.status;
  };
  const loops = [
    (async () => {
      for (let i = 0; !stop; i++) {
        const p = posts.acked[i];
        if (!p) {
          await new Promise((r) => setTimeout(r, 5));
          i--;
          continue;
        }
        if ((await call(users.reader.token, `/api/v1/statuses/${p.id}/favourite`)) === 200) favourited.push(p.id);
      }
    })(),
    (async () => {
      for (const fan of followers) {
        if (stop) return;
        if ((await call(users[fan].token, `/api/v1/accounts/${users.ann.id}/follow`)) === 200) followed.push(fan);
      }
    })(),
    (async () => {
      const actors = Array.from({ length: 3 }, (_, k) => remote.actor(`liker${k}`));
      const send = async (actor: FakeActor, activity: Record<string, unknown>) => (await remote.post(`${url}/users/ann/inbox`, activity, actor)).status === 202;
      for (const actor of actors) if (!stop && (await send(actor, follow(actor, 1)))) inboxFollows.push(actor.id);
      for (let i = 0; !stop; i++) {
        const actor = actors[i % actors.length];
        const target = posts.acked[Math.floor(i / actors.length)];
        if (!target) {
          await new Promise((r) => setTimeout(r, 5));
          i--;
          continue;
        }
        const like = { "@context": AS, id: `${actor.id}#likes/${i}`, type: "Like", actor: actor.id, object: target.uri };
        if (await send(actor, like)) inboxLikes.push({ actor: actor.id, uri: target.uri });
      }
    })(),
  ].map((l) => l.catch(() => {})); // they end when the server goes away

  await eventually(() => posts.acked.length >= 30 && favourited.length >= 10 && inboxLikes.length >= 10, 60_000, "the load to get going");
  server.signal("SIGKILL");
  await server.stop("SIGKILL");
  stop = true;
  await posts.stop();
  await Promise.all(loops);
  const acked = [...posts.acked];
  const pendingAtKill = queryDb(dataDir, (db) => Number(db.prepare("SELECT count(*) FROM jobs").pluck().get() as bigint));

  server = await serve(["--data-dir", dataDir, "--port", String(port)], env);
  assert.equal(server.url, url);

  // Every acknowledged post is served again, and reached the remote follower (deliveries that
  // were queued or in flight at the kill went out after the restart; some may come twice).
  for (const p of acked) {
    const res = await fetch(`${url}/api/v1/statuses/${p.id}`);
    assert.equal(res.status, 200, `post ${p.id} survived`);
  }
  const delivered = () => new Set(remote.received.filter((d) => d.body?.type === "Create").map((d) => d.body.object?.id));
  await eventually(() => acked.every((p) => delivered().has(p.uri)), 60_000, "every acknowledged post delivered to the remote follower");
  await eventually(() => queryDb(dataDir, (db) => Number(db.prepare("SELECT count(*) FROM jobs WHERE queue IN ('inbox', 'feeds')").pluck().get() as bigint) === 0), 60_000, "the inbox and fan-out queues to drain");

  queryDb(dataDir, (db) => {
    assert.equal(db.pragma("integrity_check", { simple: true }), "ok");
    const idOf = (sql: string, ...args: unknown[]) => db.prepare(sql).pluck().get(...args) as bigint;
    const ann = idOf("SELECT id FROM accounts WHERE username = 'ann' AND domain IS NULL");
    const reader = idOf("SELECT id FROM accounts WHERE username = 'reader' AND domain IS NULL");
    const stored = new Set((db.prepare("SELECT id FROM statuses WHERE account_id = ?").pluck().all(ann) as bigint[]).map(String));
    assert.deepEqual(acked.filter((p) => !stored.has(p.id)), [], "acknowledged posts");
    const favs = new Set((db.prepare("SELECT status_id FROM favourites WHERE account_id = ?").pluck().all(reader) as bigint[]).map(String));
    assert.deepEqual(favourited.filter((id) => !favs.has(id)), [], "acknowledged favourites");
    const fans = new Set(db.prepare("SELECT a.username FROM follows f JOIN accounts a ON a.id = f.account_id WHERE f.target_account_id = ? AND a.domain IS NULL").pluck().all(ann) as string[]);
    assert.deepEqual(followed.filter((f) => !fans.has(f)), [], "acknowledged follows over the API");
    const remoteFollowers = new Set(db.prepare("SELECT a.uri FROM follows f JOIN accounts a ON a.id = f.account_id WHERE f.target_account_id = ? AND a.domain IS NOT NULL").pluck().all(ann) as string[]);
    assert.deepEqual([bob.id, ...inboxFollows].filter((a) => !remoteFollowers.has(a)), [], "acknowledged follows through the inbox");
    const likes = new Set(
      (db.prepare("SELECT a.uri || ' ' || s.uri FROM favourites f JOIN accounts a ON a.id = f.account_id JOIN statuses s ON s.id = f.status_id WHERE a.domain IS NOT NULL").pluck().all() as string[]),
    );
    assert.deepEqual(inboxLikes.filter((l) => !likes.has(`${l.actor} ${l.uri}`)), [], "acknowledged likes through the inbox");
  });
  t.diagnostic(`at the kill: ${acked.length} posts, ${favourited.length} favourites, ${followed.length} API follows, ${inboxFollows.length} inbox follows, ${inboxLikes.length} inbox likes acknowledged; ${pendingAtKill} jobs pending`);
  assert.equal(await server.stop(), 0);
});

// A kill in the middle of a migration: the migration's transaction is rolled back, and the next
// start (here `roost migrate`, as `serve` would) finds the database intact and applies it.
test("SIGKILL during a migration: the next start recovers and migrates", async (t) => {
  const dir = tempDir(t);
  const dataDir = join(dir, "data");
  await seedInstance(dataDir, 3000, ["ann"]);
  // A slow migration after the real ones: fills a table in one transaction (several MB).
  const script = `
    import { openDatabase } from "./src/db/db.ts";
    import { loadMigrations, migrate } from "./src/db/migrate.ts";
    const db = openDatabase(${JSON.stringify(databasePath(dataDir))});
    const slow = { version: 9999, name: "slow", sql: "CREATE TABLE slow (n INTEGER, pad TEXT); WITH RECURSIVE c(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM c WHERE n < 20000000) INSERT INTO slow SELECT n, hex(randomblob(64)) FROM c;" };
    process.stdout.write("migrating\\n");
    migrate(db, [...loadMigrations(), slow]);
  `;
  const child = spawn(process.execPath, ["--import", "tsx", "--input-type=module", "-e", script], { cwd: ROOT, stdio: ["ignore", "pipe", "inherit"] });
  const exited = new Promise((resolve) => child.once("exit", (_c, signal) => resolve(signal)));
  await new Promise<void>((resolve) => child.stdout!.once("data", () => resolve()));
  // The WAL grows once the migration's pages spill out of the cache: it is mid-transaction.
  const wal = `${databasePath(dataDir)}-wal`;
  await eventually(() => (statSync(wal, { throwIfNoEntry: false })?.size ?? 0) > 8_000_000, 120_000, "the slow migration to be writing");
  child.kill("SIGKILL");
  assert.equal(await exited, "SIGKILL");

  const m = await roost(["migrate", "--data-dir", dataDir]);
  assert.equal(m.code, 0, m.stderr);
  assert.equal(m.stderr, "database is up to date\n", "the real migrations were all applied before; the killed one left nothing");
  queryDb(dataDir, (db) => {
    assert.equal(db.pragma("integrity_check", { simple: true }), "ok");
    assert.equal(db.prepare("SELECT count(*) FROM sqlite_master WHERE name = 'slow'").pluck().get(), 0n, "the half-made table was rolled back");
    assert.equal(db.prepare("SELECT count(*) FROM schema_migrations WHERE version = 9999").pluck().get(), 0n);
    assert.equal(db.prepare("SELECT count(*) FROM accounts WHERE username = 'ann'").pluck().get(), 1n);
  });
});
