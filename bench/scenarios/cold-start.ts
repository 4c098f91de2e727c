// Issue 14's start-up budget: the single executable (npm run build:exe), started cold on an
// instance with 100,000 statuses (the social scenario's seed), serves within 1 s. Measured
// from spawning the process to the first 200 of GET /api/v1/timelines/public, five times, with
// the runtime files already in place (the first start, which writes them, is reported apart).
import { spawn } from "node:child_process";
import { rmSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import Database from "better-sqlite3";
import { databasePath } from "../../src/services/init.ts";
import { copyDataDir } from "../lib/data-copy.ts";
import { freePort } from "../lib/server-process.ts";
import { median } from "../lib/stats.ts";
import type { Check, Metric, RunSummary, Scenario } from "../scenario.ts";
import { socialScenario } from "./social.ts";

const STARTS = 5;
const BUDGET_MS = 1000;
const root = fileURLToPath(new URL("../..", import.meta.url));

/** Spawns the executable and times it to `listening` and to the first served timeline page. */
async function coldStart(exe: string, dataDir: string, env: NodeJS.ProcessEnv): Promise<{ listeningMs: number; servingMs: number }> {
  const port = await freePort();
  const started = performance.now();
  const child = spawn(exe, ["serve", "--data-dir", dataDir, "--port", String(port)], { env, stdio: ["ignore", "ignore", "pipe"] });
  const exited = new Promise((resolve) => child.once("exit", resolve));
  try {
    const listeningMs = await new Promise<number>((resolve, reject) => {
      let err = "";
      child.stderr!.on("data", (c: Buffer) => {
        err += c.toString("utf8");
        if (/^listening on /m.test(err)) resolve(performance.now() - started);
      });
      child.once("exit", (code) => reject(new Error(`the executable exited with ${code}: ${err}`)));
    });
    for (;;) {
      const res = await fetch(`http://127.0.0.1:${port}/api/v1/timelines/public?limit=20`).catch(() => null);
      if (res?.status === 200) {
        await res.arrayBuffer();
        return { listeningMs, servingMs: performance.now() - started };
      }
      await new Promise((r) => setTimeout(r, 5));
    }
  } finally {
    child.kill("SIGTERM");
    await exited;
  }
}

export function coldStartScenario(): Scenario<{ copyDir: string }> {
  const social = socialScenario();
  let work: string | undefined;
  return {
    name: "cold-start",
    description: `the single executable started ${STARTS} times on the social scenario's instance (100,000 statuses): spawn to the first served timeline page`,
    async seed(app) {
      await social.seed(app);
      // A copy for the executable: the bench's own server keeps the original (one serve per data dir).
      const copy = await copyDataDir(app.config.dataDir);
      work = copy.work;
      return { copyDir: copy.dataDir };
    },
    targets: () => [],
    async measure({ seed }) {
      const exe = join(work!, "roost");
      const { buildExecutable } = (await import(join(root, "build-exe.mjs"))) as { buildExecutable(o: { out: string; quiet: boolean }): Promise<{ totalBytes: number }> };
      console.error("cold-start: building the executable");
      const built = await buildExecutable({ out: exe, quiet: true });
      const env: NodeJS.ProcessEnv = { PATH: "/usr/bin:/bin", HOME: join(work!, "home"), ROOST_LOG_LEVEL: "warn", ROOST_BACKUP_SCHEDULE: "off" };
      const statuses = (() => {
        const db = new Database(databasePath(seed.copyDir), { readonly: true });
        try {
          return Number(db.prepare("SELECT count(*) FROM statuses").pluck().get());
        } finally {
          db.close();
        }
      })();
      const first = await coldStart(exe, seed.copyDir, env);
      const runs: { listeningMs: number; servingMs: number }[] = [];
      for (let i = 0; i < STARTS; i++) runs.push(await coldStart(exe, seed.copyDir, env));
      const metrics: Metric[] = [
        { name: "statuses in the database", value: statuses, unit: "" },
        { name: "executable size", value: built.totalBytes / 1e6, unit: "MB" },
        { name: "first start (writes the runtime files): spawn to serving", value: first.servingMs, unit: "ms" },
        { name: "cold start: spawn to `listening on`", value: median(runs.map((r) => r.listeningMs)), unit: "ms", trials: runs.map((r) => r.listeningMs) },
        { name: "cold start: spawn to the first timeline page", value: median(runs.map((r) => r.servingMs)), unit: "ms", trials: runs.map((r) => r.servingMs) },
      ];
      return { metrics };
    },
    async teardown() {
      if (work) rmSync(work, { recursive: true, force: true });
    },
    checks(s: RunSummary): Check[] {
      const v = s.metrics.find((m) => m.name === "cold start: spawn to the first timeline page")?.value ?? null;
      const n = s.metrics.find((m) => m.name === "statuses in the database")?.value ?? 0;
      return [
        v === null
          ? { name: `cold start to serving < ${BUDGET_MS} ms`, ok: null, detail: "not measured" }
          : { name: `cold start to serving < ${BUDGET_MS} ms`, ok: v < BUDGET_MS, detail: `${v.toFixed(0)} ms (median of ${STARTS}) at ${n} statuses` },
      ];
    },
  };
}

export const coldStart100k = coldStartScenario();
