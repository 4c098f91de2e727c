// `npm run bench [-- SCENARIO... --seconds N --connections N --trials N --source]`
// Seeds a fresh instance, runs `roost serve` as a child process (its RSS read from /proc),
// loads each target with autocannon and checks the scenario's budgets. Results go to
// bench/results/<timestamp>-<scenario>.json and latest-<scenario>.json. Not part of npm test.
import { spawnSync } from "node:child_process";
import { cpus, loadavg } from "node:os";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { loadConfig } from "../src/config/config.ts";
import { closeApp, createApp } from "../src/main.ts";
import { initDataDir } from "../src/services/init.ts";
import { type LoadResult, probe, runLoad } from "./lib/load.ts";
import { type BenchRecord, printTable, writeResults } from "./lib/report.ts";
import { rssMb, sampleRss } from "./lib/rss.ts";
import { freePort, startServerProcess } from "./lib/server-process.ts";
import { median } from "./lib/stats.ts";
import type { Metric, RunSummary, Scenario, Target, TargetResult } from "./scenario.ts";
import { delivery } from "./scenarios/delivery.ts";
import { foundation } from "./scenarios/foundation.ts";
import { inbox, inboxIntake } from "./scenarios/inbox.ts";
import { media } from "./scenarios/media.ts";
import { social } from "./scenarios/social.ts";
import { scheduled } from "./scenarios/scheduled.ts";
import { push } from "./scenarios/push.ts";
import { search } from "./scenarios/search.ts";
import { trends } from "./scenarios/trends.ts";
import { streaming } from "./scenarios/streaming.ts";
import { admin } from "./scenarios/admin.ts";
import { coldStart100k } from "./scenarios/cold-start.ts";
import { soak } from "./scenarios/soak.ts";
import { prune } from "./scenarios/prune.ts";
import { backfill } from "./scenarios/backfill.ts";
import { archive } from "./scenarios/archive.ts";
import { csvImport } from "./scenarios/csv-import.ts";

const SCENARIOS: Record<string, Scenario<any>> = {
  foundation, social, inbox, "inbox-intake": inboxIntake, delivery, scheduled, media, streaming, search, admin, trends, push,
  "cold-start": coldStart100k, soak, prune, backfill, archive, "csv-import": csvImport,
};
/** Run only when named: the soak takes 30 minutes. */
const ON_REQUEST = new Set(["soak"]);

const root = fileURLToPath(new URL("..", import.meta.url));
// Inside node_modules so the bundle resolves its external packages; never dist/, which
// `roost` itself would then prefer over the sources.
const bundleDir = join(root, "node_modules", ".cache", "roost-bench");
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const WRITE_TRIAL_PAUSE_MS = 5000;

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    seconds: { type: "string", default: "10" },
    warmup: { type: "string", default: "2" },
    connections: { type: "string" },
    source: { type: "boolean", default: false },
    /** Runs per target (and per measurement of the federation scenarios); budgets use the median. */
    trials: { type: "string", default: "3" },
    /** Length of the soak scenario's load. */
    minutes: { type: "string", default: "30" },
  },
});
const seconds = Number(values.seconds);
const warmup = Number(values.warmup);
/** `--connections`, else the scenario's own, else 32. */
const connectionsOf = (s: Scenario<unknown>) => (values.connections ? Number(values.connections) : (s.connections ?? 32));
const trials = Math.max(1, Number(values.trials));
const minutes = Math.max(1, Math.round(Number(values.minutes)));
const mode = values.source ? "source" : "bundle";

/** Node's arguments to run a `roost` command in this run's mode (bundle or source). */
function cliArgs(args: string[]): string[] {
  const cli = mode === "bundle" ? [join(bundleDir, "roost.mjs")] : ["--import", "tsx", join(root, "cli", "roost.ts")];
  return [...cli, ...args];
}

function serverArgs(dataDir: string, port: number): string[] {
  // BENCH_SERVER_NODE_ARGS reach the server alone (e.g. "--cpu-prof --cpu-prof-dir=DIR" to see
  // where a soak's time went), without profiling this runner too.
  const nodeArgs = process.env.BENCH_SERVER_NODE_ARGS?.split(" ").filter(Boolean) ?? [];
  return [...nodeArgs, ...cliArgs(["serve", "--data-dir", dataDir, "--host", "127.0.0.1", "--port", String(port)])];
}

function serverEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) if (!k.startsWith("ROOST_")) env[k] = v;
  return { ...env, ROOST_BENCH_ROUTES: "1", ROOST_LOG_LEVEL: "warn", ROOST_BACKUP_SCHEDULE: "off", ...extra };
}

/** Median of a few samples once start-up work (JIT, first GC) has settled. */
async function idleRss(pid: number): Promise<number | null> {
  await sleep(2000);
  const samples: number[] = [];
  for (let i = 0; i < 5; i++) {
    const v = rssMb(pid);
    if (v !== null) samples.push(v);
    await sleep(200);
  }
  samples.sort((a, b) => a - b);
  return samples.length ? samples[Math.floor(samples.length / 2)] : null;
}

/**
 * Loads every target `trials` times, interleaved (baseline, a, b, baseline, a, b, ...) so a
 * target and the baseline it is compared with see the same machine load; each target's
 * figures are then the median of its trials. Warm-up runs once, before a target's first trial.
 * Writing targets (POST status) run all their trials after the reads: their thousands of new
 * posts would otherwise change the data the later read trials measure (fuller home feeds,
 * cold caches), and the reads' budgets are about the seeded instance.
 */
async function loadTargets(url: string, pid: number, list: Target[], connections: number): Promise<{ results: TargetResult[]; loadMax: number | null }> {
  const results: TargetResult[] = [];
  const runnable: { t: Target; base: TargetResult; samples: LoadResult[]; maxRss: number | null }[] = [];
  for (const t of list) {
    const status = await probe(url, t);
    const base: TargetResult = {
      name: t.name, method: t.method ?? "GET", path: t.path, status, skipped: true,
      reqPerSec: null, p50Ms: null, p99Ms: null, non2xx: 0, errors: 0, bytesPerReq: null, maxRssMb: null,
    };
    results.push(base);
    if (status < 200 || status >= 300) console.error(`${t.name}: ${t.path} answered ${status}; skipped`);
    else runnable.push({ t, base, samples: [], maxRss: null });
  }
  let loadMax: number | null = null;
  const reads = runnable.filter((r) => (r.t.method ?? "GET") === "GET");
  const writes = runnable.filter((r) => (r.t.method ?? "GET") !== "GET");
  for (const group of [reads, writes])
  for (let trial = 1; trial <= trials; trial++) {
    // A write trial leaves background work (fan-out jobs) behind: the next one starts once it
    // had time to finish, as it would between bursts of posting.
    if (group === writes && trial > 1) await sleep(WRITE_TRIAL_PAUSE_MS);
    for (const r of group) {
      const label = trials > 1 ? ` (trial ${trial}/${trials})` : "";
      if (trial === 1 && warmup > 0) {
        console.error(`${r.t.name}: warm-up ${warmup} s`);
        await runLoad(url, r.t, connections, warmup);
      }
      console.error(`${r.t.name}: ${seconds} s with ${connections} connections${label}`);
      const sampler = sampleRss(pid);
      r.samples.push(await runLoad(url, r.t, connections, seconds));
      const maxRss = sampler.stop();
      if (maxRss !== null && (r.maxRss === null || maxRss > r.maxRss)) r.maxRss = maxRss;
      if (maxRss !== null && (loadMax === null || maxRss > loadMax)) loadMax = maxRss;
    }
  }
  for (const r of runnable) {
    const pick = (f: (x: LoadResult) => number) => median(r.samples.map(f));
    const sum = (f: (x: LoadResult) => number) => r.samples.reduce((n, x) => n + f(x), 0);
    Object.assign(r.base, {
      skipped: false,
      reqPerSec: pick((x) => x.reqPerSec),
      p50Ms: pick((x) => x.p50Ms),
      p99Ms: pick((x) => x.p99Ms),
      non2xx: sum((x) => x.non2xx),
      errors: sum((x) => x.errors),
      bytesPerReq: pick((x) => x.bytesPerReq),
      maxRssMb: r.maxRss,
      ...(r.samples.length > 1 ? { trials: r.samples.map((x) => ({ reqPerSec: x.reqPerSec, p50Ms: x.p50Ms, p99Ms: x.p99Ms })) } : {}),
    });
  }
  return { results, loadMax };
}

async function runScenario(s: Scenario<unknown>): Promise<BenchRecord> {
  const connections = connectionsOf(s);
  const startedAt = new Date().toISOString();
  const dataDir = mkdtempSync(join(tmpdir(), "roost-bench-"));
  try {
    const port = await freePort();
    initDataDir(dataDir, { ...s.init, domain: `127.0.0.1:${port}`, protocol: "http" });
    const app = createApp(loadConfig(dataDir, { logLevel: "warn", jobsAutorun: false }, {}));
    let seed: unknown;
    try {
      seed = await s.seed(app);
    } finally {
      await closeApp(app);
    }

    // The 1-minute load average: the machine is shared, and other work skews the figures.
    const loadAtStart = loadavg()[0];
    const server = await startServerProcess({ args: serverArgs(dataDir, port), env: serverEnv(s.serverEnv) });
    let targets: TargetResult[] = [];
    const metrics: Metric[] = [];
    let idle: number | null = null;
    let loadMax: number | null = null;
    try {
      idle = await idleRss(server.pid);
      ({ results: targets, loadMax } = await loadTargets(server.url, server.pid, s.targets(seed), connections));
      if (s.measure) {
        const sampler = sampleRss(server.pid);
        const m = await s.measure({ url: server.url, pid: server.pid, dataDir, seed, seconds, warmup, connections, trials, minutes, cliArgs, cliEnv: serverEnv(s.serverEnv) });
        const maxRss = sampler.stop();
        if (maxRss !== null && (loadMax === null || maxRss > loadMax)) loadMax = maxRss;
        targets.push(...(m.targets ?? []));
        metrics.push(...m.metrics);
      }
    } finally {
      const code = await server.stop();
      if (code !== 0) console.error(`warning: the server exited with ${code} on SIGTERM`);
      await s.teardown?.();
    }
    const summary: RunSummary = { idleRssMb: idle, loadRssMb: loadMax, targets, metrics };
    return {
      scenario: s.name,
      description: s.description,
      startedAt,
      mode,
      connections,
      seconds,
      trials,
      machine: { node: process.version, platform: process.platform, cpus: cpus().length, cpuModel: cpus()[0]?.model ?? "", loadAvg: { start: loadAtStart, end: loadavg()[0] } },
      ...summary,
      checks: s.checks(summary),
    };
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}

const names = positionals.length ? positionals : Object.keys(SCENARIOS).filter((n) => !ON_REQUEST.has(n));
for (const n of names) if (!SCENARIOS[n]) throw new Error(`unknown scenario ${n} (known: ${Object.keys(SCENARIOS).join(", ")})`);

if (mode === "bundle") {
  const b = spawnSync(process.execPath, [join(root, "build.mjs"), "--outdir", bundleDir], { cwd: root, stdio: "inherit" });
  if (b.status !== 0) process.exit(b.status ?? 1);
}
let failed = false;
for (const n of names) {
  const record = await runScenario(SCENARIOS[n]);
  printTable(record);
  console.log(`results: ${writeResults(join(root, "bench", "results"), record)}`);
  if (record.checks.some((c) => c.ok === false)) failed = true;
}
process.exitCode = failed ? 1 : 0;
