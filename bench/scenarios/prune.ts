// `roost prune` over remote statuses nobody here touched while the server serves timeline reads
// (issue 14 budget: 500k statuses pruned in < 60 s, reads p99 < 50 ms meanwhile). The statuses
// are bulk-inserted past the 90-day retention; the prune runs as the CLI process an operator
// starts, next to the running server; autocannon reads the home and public timelines in
// short rounds until it ends. ROOST_BENCH_PRUNE_STATUSES sets the count (default 500,000).
import { spawn } from "node:child_process";
import { statSync } from "node:fs";
import { join } from "node:path";
import type { App } from "../../src/app.ts";
import { tx } from "../../src/db/db.ts";
import { CLI_APP, ensureBuiltinApp, issueToken } from "../../src/services/tokens.ts";
import { createUser } from "../../src/services/users.ts";
import { runLoad } from "../lib/load.ts";
import { cpuMs } from "../lib/rss.ts";
import { median } from "../lib/stats.ts";
import type { Check, Metric, RunSummary, Scenario, Target, TargetResult } from "../scenario.ts";

const DAY = 86_400_000;
const REMOTE_STATUSES = Number(process.env.ROOST_BENCH_PRUNE_STATUSES ?? 500_000);
const REMOTE_ACCOUNTS = 500;
const LOCAL_POSTS = 2_000;
const PRUNE_BUDGET_S = 60;
const P99_BUDGET_MS = 50;
const ROUND_S = 3;

interface Seed {
  token: string;
  remoteStatuses: number;
}

function bulkSeed(app: App, readerAccountId: string): void {
  const db = app.db;
  const now = app.now();
  const account = db.prepare(
    `INSERT INTO accounts (id, username, domain, display_name, uri, url, inbox_url, fetched_at, created_at, updated_at)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  const status = db.prepare(
    `INSERT INTO statuses (id, account_id, local, uri, url, content, visibility, language, conversation_id, created_at, updated_at)
     VALUES (?, ?, ?, ?, ?, ?, 'public', 'en', NULL, ?, ?)`,
  );
  const home = db.prepare("INSERT INTO home_feeds (account_id, status_id) VALUES (?, ?)");
  const remoteIds: bigint[] = [];
  const old = now - 200 * DAY;
  tx(db, () => {
    for (let i = 0; i < REMOTE_ACCOUNTS; i++) {
      const id = BigInt(app.ids.next());
      const domain = `peer${i % 40}.example`;
      const uri = `https://${domain}/users/far${i}`;
      account.run(id, `far${i}`, domain, `Far ${i}`, uri, uri, `${uri}/inbox`, old, old, old);
      remoteIds.push(id);
    }
  });
  // Remote posts of 200 to 110 days ago, in id order, in transactions of 10,000.
  const span = 90 * DAY;
  const BATCH = 10_000;
  for (let start = 0; start < REMOTE_STATUSES; start += BATCH) {
    tx(db, () => {
      for (let i = start; i < Math.min(REMOTE_STATUSES, start + BATCH); i++) {
        const at = old + Math.floor((i * span) / REMOTE_STATUSES);
        const id = (BigInt(at) << 16n) | BigInt(i & 0xffff);
        const author = remoteIds[i % REMOTE_ACCOUNTS];
        const uri = `https://peer${i % 40}.example/users/far${i % REMOTE_ACCOUNTS}/statuses/${i}`;
        status.run(id, author, 0, uri, uri, `<p>remote post ${i} with a few words of text to make it a realistic size</p>`, at, at);
      }
    });
  }
  // Local posts of the last days, in the reader's home.
  tx(db, () => {
    for (let i = 0; i < LOCAL_POSTS; i++) {
      const at = now - Math.floor((i * 5 * DAY) / LOCAL_POSTS);
      const id = (BigInt(at) << 16n) | BigInt(i & 0xffff);
      status.run(id, BigInt(readerAccountId), 1, `${app.baseUrl}/users/reader/statuses/${id}`, null, `<p>local post ${i}</p>`, at, at);
      home.run(BigInt(readerAccountId), id);
    }
    db.prepare("UPDATE accounts SET statuses_count = ? WHERE id = ?").run(LOCAL_POSTS, BigInt(readerAccountId));
  });
}

export const prune: Scenario<Seed> = {
  name: "prune",
  description: `roost prune over ${REMOTE_STATUSES.toLocaleString("en")} untouched remote statuses (past the 90-day retention) while the server serves home and public timeline reads`,
  // The server's own hourly storage.prune must not run: the CLI prune is what is measured.
  serverEnv: { ROOST_REMOTE_CONTENT_RETENTION_DAYS: "0" },
  connections: 8,
  async seed(app) {
    const { user, account } = await createUser(app, { username: "reader", email: "reader@bench.test", password: "bench password 1" });
    const cli = ensureBuiltinApp(app, CLI_APP);
    const token = issueToken(app, { userId: user.id, applicationId: cli.id, scopes: ["read"] }).token;
    const started = performance.now();
    bulkSeed(app, account.id);
    console.log(`prune: seeded ${REMOTE_STATUSES} remote statuses in ${((performance.now() - started) / 1000).toFixed(1)} s`);
    return { token, remoteStatuses: REMOTE_STATUSES };
  },
  targets: () => [],
  async measure({ url, dataDir, seed, connections, cliArgs, cliEnv }) {
    const h = { authorization: `Bearer ${seed.token}` };
    const reads: Target[] = [
      { name: "home timeline during prune", path: "/api/v1/timelines/home?limit=20", headers: h },
      { name: "public timeline during prune", path: "/api/v1/timelines/public?local=true&limit=20", headers: h },
    ];
    // The same reads before the prune starts: what the machine gives without it.
    const baseline: TargetResult[] = [];
    for (const t of reads) {
      const r = await runLoad(url, t, connections, ROUND_S * 2);
      baseline.push({
        name: t.name.replace("during prune", "before prune"), method: "GET", path: t.path, status: 200, skipped: false,
        reqPerSec: r.reqPerSec, p50Ms: r.p50Ms, p99Ms: r.p99Ms, non2xx: r.non2xx, errors: r.errors, bytesPerReq: r.bytesPerReq, maxRssMb: null,
      });
    }
    const started = performance.now();
    const child = spawn(process.execPath, cliArgs(["prune", "--json", "--data-dir", dataDir]), {
      env: { ...cliEnv, ROOST_REMOTE_CONTENT_RETENTION_DAYS: "90", ROOST_LOG_LEVEL: "warn" },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (c) => (stdout += c));
    child.stderr.on("data", (c) => (stderr += c));
    // The prune's CPU time (less noisy than its wall time on a shared machine) and the WAL's
    // largest size (a WAL the prune grows is one the server's next write may checkpoint).
    let pruneCpuMs = 0;
    let walMaxBytes = 0;
    const sampler = setInterval(() => {
      pruneCpuMs = Math.max(pruneCpuMs, cpuMs(child.pid!) ?? 0);
      try {
        walMaxBytes = Math.max(walMaxBytes, statSync(join(dataDir, "roost.db-wal")).size);
      } catch {
        // no WAL file at this moment
      }
    }, 100);
    let pruneSeconds: number | null = null;
    const done = new Promise<number>((resolve) =>
      child.on("exit", (code) => {
        pruneSeconds = (performance.now() - started) / 1000;
        resolve(code ?? 1);
      }),
    );
    const rounds: Record<string, Awaited<ReturnType<typeof runLoad>>[]> = Object.fromEntries(reads.map((t) => [t.name, []]));
    while (pruneSeconds === null) {
      for (const t of reads) {
        if (pruneSeconds !== null) break;
        rounds[t.name].push(await runLoad(url, t, connections, ROUND_S));
      }
    }
    const code = await done;
    clearInterval(sampler);
    if (code !== 0) throw new Error(`roost prune failed (${code}): ${stderr.slice(0, 2000)}`);
    const report = JSON.parse(stdout);
    const targets: TargetResult[] = reads.map((t) => {
      const runs = rounds[t.name];
      return {
        name: t.name, method: "GET", path: t.path, status: 200, skipped: runs.length === 0,
        reqPerSec: runs.length ? median(runs.map((r) => r.reqPerSec)) : null,
        p50Ms: runs.length ? median(runs.map((r) => r.p50Ms)) : null,
        // The worst round: the budget holds for the whole prune, not its median.
        p99Ms: runs.length ? Math.max(...runs.map((r) => r.p99Ms)) : null,
        non2xx: runs.reduce((n, r) => n + r.non2xx, 0), errors: runs.reduce((n, r) => n + r.errors, 0),
        bytesPerReq: runs.length ? median(runs.map((r) => r.bytesPerReq)) : null, maxRssMb: null,
        trials: runs.map((r) => ({ reqPerSec: r.reqPerSec, p50Ms: r.p50Ms, p99Ms: r.p99Ms })),
      };
    });
    const metrics: Metric[] = [
      { name: "prune time", value: Math.round(pruneSeconds! * 10) / 10, unit: "s" },
      { name: "prune CPU time (sampled)", value: Math.round(pruneCpuMs / 100) / 10, unit: "s" },
      { name: "WAL size, largest", value: Math.round(walMaxBytes / 100_000) / 10, unit: "MB" },
      { name: "statuses pruned", value: report.statuses.count, unit: "statuses" },
      { name: "remote statuses seeded", value: seed.remoteStatuses, unit: "statuses" },
    ];
    return { targets: [...baseline, ...targets], metrics };
  },
  checks(summary: RunSummary): Check[] {
    const metric = (n: string) => summary.metrics.find((m) => m.name === n)?.value ?? null;
    const seconds = metric("prune time");
    const pruned = metric("statuses pruned");
    const seeded = metric("remote statuses seeded");
    const checks: Check[] = [
      { name: "every untouched remote status pruned", ok: pruned === null ? null : pruned === seeded, detail: `${pruned} of ${seeded}` },
      {
        name: `prune of ${seeded} statuses < ${PRUNE_BUDGET_S} s${seeded === 500_000 ? "" : " (scaled: the budget is for 500k)"}`,
        ok: seconds === null || seeded === null ? null : seconds * (500_000 / seeded) < PRUNE_BUDGET_S,
        detail: `${seconds} s`,
      },
    ];
    for (const t of summary.targets.filter((x) => x.name.endsWith("during prune"))) {
      checks.push({ name: `${t.name}: p99 < ${P99_BUDGET_MS} ms (worst ${ROUND_S}-s round)`, ok: t.p99Ms === null ? null : t.p99Ms < P99_BUDGET_MS, detail: `${t.p99Ms} ms over ${t.trials?.length ?? 0} rounds` });
    }
    return checks;
  },
};
