import { test } from "node:test";
import assert from "node:assert/strict";
import { chmodSync, chownSync, existsSync, readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { loadConfig } from "../../src/config/config.ts";
import { recordDeliveryFailure } from "../../src/federation/peers.ts";
import { closeApp, createApp } from "../../src/main.ts";
import { adminSocketPath } from "../../src/ops/admin-socket.ts";
import { eventually } from "../helpers/fake-remote.ts";
import { freePort, roost, serve, tempDir } from "./cli-helpers.ts";
import { seedInstance } from "./ops-helpers.ts";

const TOKEN = "metrics-token-0123456789";

test("roost status, /health, /metrics and the admin socket of a running server", async (t) => {
  const dir = tempDir(t);
  const dataDir = join(dir, "data");
  const port = await freePort();
  const { ann } = await seedInstance(dataDir, port, ["ann"]);
  // A peer that failed, a job that died and one waiting for tomorrow.
  const app = createApp(loadConfig(dataDir, { logLevel: "silent", jobsAutorun: false, backupSchedule: "off" }, {}));
  try {
    recordDeliveryFailure(app, "down.example");
    app.jobs.enqueue("no.such.job", {}, { queue: "federation" });
    app.jobs.enqueue("no.such.job", {}, { queue: "federation", runAt: Date.now() + 86_400_000 });
    await app.jobs.drain();
  } finally {
    await closeApp(app);
  }

  // The default schedule (every 24h, keep 7) takes the first backup soon after the start.
  const server = await serve(["--data-dir", dataDir, "--port", String(port)], { ROOST_METRICS_TOKEN: TOKEN });
  t.after(() => server.stop());
  await eventually(() => readdirSync(join(dataDir, "backups")).some((n) => /^roost-\d{8}-\d{6}-scheduled\.tar\.gz$/.test(n)), 20_000, "the first scheduled backup");
  assert.equal(statSync(adminSocketPath(dataDir)).mode & 0o777, 0o600, "the admin socket is the owner's alone");

  const post = await fetch(`${server.url}/api/v1/statuses`, {
    method: "POST",
    headers: { authorization: `Bearer ${ann.token}`, "content-type": "application/json" },
    body: JSON.stringify({ status: "counted" }),
  });
  assert.equal(post.status, 200);
  const health = await fetch(`${server.url}/health`);
  assert.deepEqual([health.status, await health.text()], [200, "OK"]);

  const [json, text, second] = await Promise.all([
    roost(["status", "--json", "--data-dir", dataDir]),
    roost(["status", "--data-dir", dataDir]),
    roost(["serve", "--data-dir", dataDir, "--port", String(await freePort())]),
  ]);
  assert.equal(json.code, 0, json.stderr);
  const r = JSON.parse(json.stdout);
  assert.equal(r.version, "0.1.0");
  assert.equal(r.server.pid, server.pid);
  assert.equal(r.server.url, server.url);
  assert.ok(r.server.uptimeSeconds >= 0 && r.server.rssBytes > 10_000_000);
  assert.equal(typeof r.server.eventLoopDelayMs.p99, "number");
  // The memory split the soak records per minute: V8's figures and the statement cache.
  assert.ok(r.server.memory.heapTotalBytes >= r.server.heapUsedBytes && r.server.memory.externalBytes > 0);
  assert.ok(r.server.memory.arrayBuffersBytes >= 0 && r.server.memory.arrayBuffersBytes <= r.server.memory.externalBytes);
  assert.ok(r.server.cachedStatements > 10, `cached statements: ${r.server.cachedStatements}`);
  assert.ok(r.database.bytes > 100_000);
  assert.equal(typeof r.database.walBytes, "number");
  assert.deepEqual(r.database.pendingMigrations, []);
  const federation = r.jobs.find((q: { queue: string }) => q.queue === "federation");
  assert.deepEqual([federation.due, federation.scheduled, federation.dead, federation.deadLastDay], [0, 1, 1, 1]);
  assert.deepEqual([r.federation.peersFailing, r.federation.peersUnavailable, r.federation.worst[0].domain], [1, 0, "down.example"]);
  assert.equal(r.backups.schedule, "every 24h, keep 7");
  assert.equal(r.backups.last.kind, "scheduled");
  assert.ok(r.backups.last.bytes > 0);
  assert.deepEqual([r.storage.budgetBytes, r.storage.percentOfBudget], [null, null]);
  // Pages in use (the file less free pages; pages still in the WAL count too) plus media.
  assert.ok(r.storage.usedBytes > r.media.bytes + 100_000 && r.storage.usedBytes <= r.database.bytes + r.database.walBytes + r.media.bytes);
  assert.equal(typeof r.ffmpeg.available, "boolean");

  assert.equal(text.code, 0, text.stderr);
  assert.match(text.stdout, new RegExp(`^server {5}running: pid ${server.pid}, ${server.url.replace(/\./g, "\\.")}, up `, "m"));
  assert.match(text.stdout, /^backups {4}every 24h, keep 7; last \d{4}-\d\d-\d\dT.*\(.* ago, scheduled, /m);
  assert.match(text.stdout, /^federation 1 peer\(s\) failing, 0 unavailable \(down\.example: 1 day\(s\)\)$/m);
  assert.match(text.stdout, /^ {2}federation +0 +1 +0 +0 +1 +1 +-$/m);

  // A second server on the same data dir is refused (another port, so only the socket tells).
  assert.equal(second.code, 1);
  assert.equal(second.stderr, `error: another roost serve (pid ${server.pid}, ${server.url}) is running on ${dataDir}\n`);

  // /metrics: only with the token.
  const refused = await fetch(`${server.url}/metrics`, { headers: { authorization: "Bearer wrong-token-0123456789" } });
  assert.equal(refused.status, 401);
  assert.equal((await fetch(`${server.url}/metrics`)).status, 401);
  const metrics = await fetch(`${server.url}/metrics`, { headers: { authorization: `Bearer ${TOKEN}` } });
  assert.equal(metrics.status, 200);
  assert.match(metrics.headers.get("content-type") ?? "", /^text\/plain; version=0\.0\.4/);
  const body = await metrics.text();
  assert.match(body, /^roost_http_requests_total\{group="statuses",method="POST",status="2xx"\} 1$/m);
  assert.match(body, /^roost_http_requests_total\{group="health",method="GET",status="2xx"\} 1$/m, "the one GET /health above");
  assert.match(body, /^roost_http_request_duration_seconds_bucket\{le="\+Inf",group="statuses",method="POST"\} 1$/m);
  assert.match(body, /^roost_job_queue_scheduled\{queue="federation"\} 1$/m);
  assert.match(body, /^roost_dead_jobs\{queue="federation"\} 1$/m);
  assert.match(body, /^roost_jobs_total\{name="periodic\.backup\.create",queue="default",outcome="done"\} 1$/m);
  assert.match(body, /^roost_federation_peers_failing\{state="failing"\} 1$/m);
  assert.match(body, /^roost_database_bytes\{file="db"\} \d+$/m);
  assert.match(body, /^process_resident_memory_bytes \d+$/m);
  assert.match(body, /^nodejs_eventloop_lag_p99_seconds [\d.e-]+$/m);

  assert.equal(await server.stop(), 0);
  assert.ok(!existsSync(adminSocketPath(dataDir)), "the socket is removed at a clean stop");
  const after = await roost(["status", "--data-dir", dataDir]);
  assert.match(after.stdout, /^server {5}not running/m);
});

test("a read-only data dir stops serve, migrate and user create with one clear line", async (t) => {
  const dir = tempDir(t);
  const dataDir = join(dir, "data");
  await seedInstance(dataDir, 3000, ["ann"]);
  // As root, permission bits do not bind: the commands run as nobody on root's files instead.
  const asRoot = process.getuid?.() === 0;
  chmodSync(dir, 0o755);
  chmodSync(dataDir, asRoot ? 0o755 : 0o555);
  chmodSync(join(dataDir, "config.json"), 0o644);
  if (asRoot) for (const f of readdirSync(dataDir)) if (f.startsWith("roost.db")) chownSync(join(dataDir, f), 0, 0);
  const opts = asRoot ? { uid: 65534, gid: 65534 } : {};
  const runs = await Promise.all([
    roost(["serve", "--data-dir", dataDir, "--port", "0"], opts),
    roost(["migrate", "--data-dir", dataDir], opts),
    roost(["user", "create", "bob", "--data-dir", dataDir, "--email", "bob@example.test"], opts),
  ]);
  for (const r of runs) {
    assert.equal(r.code, 1, r.stderr);
    assert.match(r.stderr, new RegExp(`^error: ${dataDir} is not writable by this user \\(uid \\d+\\): roost writes its database, media and backups in the data dir ${dataDir}\\n$`));
  }
  chmodSync(dataDir, 0o755); // so the temporary dir can be removed
});
