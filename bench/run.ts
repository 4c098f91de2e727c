// `npm run bench [-- SCENARIO... --seconds N --connections N --source]`
// Seeds a fresh instance, runs `roost serve` as a child process (its RSS read from /proc),
// loads each target with autocannon and checks the scenario's budgets. Results go to
// bench/results/<timestamp>-<scenario>.json and latest-<scenario>.json. Not part of npm test.
import { spawnSync } from "node:child_process";
import { cpus } from "node:os";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { loadConfig } from "../src/config/config.ts";
import { closeApp, createApp } from "../src/main.ts";
import { initDataDir } from "../src/services/init.ts";
import { probe, runLoad } from "./lib/load.ts";
import { type BenchRecord, printTable, writeResults } from "./lib/report.ts";
import { rssMb, sampleRss } from "./lib/rss.ts";
import { freePort, startServerProcess } from "./lib/server-process.ts";
import type { Scenario, TargetResult } from "./scenario.ts";
import { foundation } from "./scenarios/foundation.ts";
import { social } from "./scenarios/social.ts";

const SCENARIOS: Record<string, Scenario<any>> = { foundation, social };

const root = fileURLToPath(new URL("..", import.meta.url));
// Inside node_modules so the bundle resolves its external packages; never dist/, which
// `roost` itself would then prefer over the sources.
const bundleDir = join(root, "node_modules", ".cache", "roost-bench");
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    seconds: { type: "string", default: "10" },
    warmup: { type: "string", default: "2" },
    connections: { type: "string", default: "32" },
    source: { type: "boolean", default: false },
  },
});
const seconds = Number(values.seconds);
const warmup = Number(values.warmup);
const connections = Number(values.connections);
const mode = values.source ? "source" : "bundle";

function serverArgs(dataDir: string, port: number): string[] {
  const cli = mode === "bundle" ? [join(bundleDir, "roost.mjs")] : ["--import", "tsx", join(root, "cli", "roost.ts")];
  return [...cli, "serve", "--data-dir", dataDir, "--host", "127.0.0.1", "--port", String(port)];
}

function serverEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) if (!k.startsWith("ROOST_")) env[k] = v;
  return { ...env, ROOST_BENCH_ROUTES: "1", ROOST_LOG_LEVEL: "warn" };
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

async function runScenario(s: Scenario<unknown>): Promise<BenchRecord> {
  const startedAt = new Date().toISOString();
  const dataDir = mkdtempSync(join(tmpdir(), "roost-bench-"));
  try {
    const port = await freePort();
    initDataDir(dataDir, { domain: `127.0.0.1:${port}`, protocol: "http" });
    const app = createApp(loadConfig(dataDir, { logLevel: "warn", jobsAutorun: false }, {}));
    let seed: unknown;
    try {
      seed = await s.seed(app);
    } finally {
      await closeApp(app);
    }

    const server = await startServerProcess({ args: serverArgs(dataDir, port), env: serverEnv() });
    const targets: TargetResult[] = [];
    let idle: number | null = null;
    let loadMax: number | null = null;
    try {
      idle = await idleRss(server.pid);
      for (const t of s.targets(seed)) {
        const status = await probe(server.url, t);
        const base: TargetResult = {
          name: t.name, method: t.method ?? "GET", path: t.path, status, skipped: true,
          reqPerSec: null, p50Ms: null, p99Ms: null, non2xx: 0, errors: 0, bytesPerReq: null, maxRssMb: null,
        };
        if (status < 200 || status >= 300) {
          console.error(`${t.name}: ${t.path} answered ${status}; skipped`);
          targets.push(base);
          continue;
        }
        console.error(`${t.name}: warm-up ${warmup} s, then ${seconds} s with ${connections} connections`);
        if (warmup > 0) await runLoad(server.url, t, connections, warmup);
        const sampler = sampleRss(server.pid);
        const r = await runLoad(server.url, t, connections, seconds);
        const maxRss = sampler.stop();
        if (maxRss !== null && (loadMax === null || maxRss > loadMax)) loadMax = maxRss;
        targets.push({ ...base, skipped: false, ...r, maxRssMb: maxRss });
      }
    } finally {
      const code = await server.stop();
      if (code !== 0) console.error(`warning: the server exited with ${code} on SIGTERM`);
    }
    const summary = { idleRssMb: idle, loadRssMb: loadMax, targets };
    return {
      scenario: s.name,
      description: s.description,
      startedAt,
      mode,
      connections,
      seconds,
      machine: { node: process.version, platform: process.platform, cpus: cpus().length, cpuModel: cpus()[0]?.model ?? "" },
      ...summary,
      checks: s.checks(summary),
    };
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}

const names = positionals.length ? positionals : Object.keys(SCENARIOS);
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
