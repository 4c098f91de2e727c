// `npx tsx bench/profile.ts SCENARIO [--data-dir DIR] [--target NAME]... [--seconds N] [--cpu-prof]`
// A developer tool beside bench/run.ts: seeds the scenario once into DIR (kept, so repeated
// runs skip the slow seeding; the port is fixed in DIR because the seed bakes the domain in),
// then loads each named target (default: all), alternating with the baseline so both see the
// same machine load. With --cpu-prof the server writes a V8 profile whose hottest functions
// are printed (self time and inclusive time). Nothing is written to bench/results.
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { tmpdir } from "node:os";
import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { loadConfig } from "../src/config/config.ts";
import { closeApp, createApp } from "../src/main.ts";
import { initDataDir } from "../src/services/init.ts";
import { runLoad } from "./lib/load.ts";
import { cpuMs } from "./lib/rss.ts";
import { freePort, startServerProcess } from "./lib/server-process.ts";
import { summarizeProfile } from "./lib/cpu-profile.ts";
import type { Scenario } from "./scenario.ts";
import { foundation } from "./scenarios/foundation.ts";
import { search } from "./scenarios/search.ts";
import { social } from "./scenarios/social.ts";

const SCENARIOS: Record<string, Scenario<any>> = { foundation, social, search };
const root = fileURLToPath(new URL("..", import.meta.url));
const bundleDir = join(root, "node_modules", ".cache", "roost-bench");

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    "data-dir": { type: "string" },
    target: { type: "string", multiple: true },
    seconds: { type: "string", default: "8" },
    connections: { type: "string", default: "32" },
    rounds: { type: "string", default: "1" },
    "cpu-prof": { type: "boolean", default: false },
    "no-build": { type: "boolean", default: false },
    /** Load only the targets (a cleaner profile); the baseline still gets its warm-up. */
    "no-baseline": { type: "boolean", default: false },
  },
});
const name = positionals[0] ?? "foundation";
const scenario = SCENARIOS[name];
if (!scenario) throw new Error(`unknown scenario ${name}`);
const dataDir = resolve(values["data-dir"] ?? join(tmpdir(), `roost-profile-${name}`));
const seedFile = join(dataDir, "profile-seed.json");

async function ensureSeeded(): Promise<{ port: number; seed: unknown }> {
  if (existsSync(seedFile)) return JSON.parse(readFileSync(seedFile, "utf8"));
  mkdirSync(dataDir, { recursive: true });
  const port = await freePort();
  initDataDir(dataDir, { domain: `127.0.0.1:${port}`, protocol: "http" });
  const app = createApp(loadConfig(dataDir, { logLevel: "warn", jobsAutorun: false }, {}));
  let seed: unknown;
  try {
    seed = await scenario.seed(app);
  } finally {
    await closeApp(app);
  }
  writeFileSync(seedFile, JSON.stringify({ port, seed }));
  return { port, seed };
}

if (!values["no-build"]) {
  const b = spawnSync(process.execPath, [join(root, "build.mjs"), "--outdir", bundleDir], { cwd: root, stdio: "inherit" });
  if (b.status !== 0) process.exit(b.status ?? 1);
}
const { port, seed } = await ensureSeeded();
const profDir = join(dataDir, "cpu-profiles");
const nodeArgs = values["cpu-prof"] ? ["--cpu-prof", `--cpu-prof-dir=${profDir}`] : [];
const env: NodeJS.ProcessEnv = {};
for (const [k, v] of Object.entries(process.env)) if (!k.startsWith("ROOST_")) env[k] = v;
Object.assign(env, { ROOST_BENCH_ROUTES: "1", ROOST_LOG_LEVEL: "warn", ROOST_BACKUP_SCHEDULE: "off" });
const server = await startServerProcess({
  args: [...nodeArgs, join(bundleDir, "roost.mjs"), "serve", "--data-dir", dataDir, "--host", "127.0.0.1", "--port", String(port)],
  env,
});
const before = new Set(existsSync(profDir) ? readdirSync(profDir) : []);
try {
  const all = scenario.targets(seed);
  const base = all.find((t) => t.baseline)!;
  // Writes (POST status) only when named: they grow the seeded data dir that later runs reuse.
  const chosen = values.target?.length
    ? all.filter((t) => values.target!.some((n) => t.name.includes(n)))
    : all.filter((t) => !t.baseline && (t.method ?? "GET") === "GET");
  const seconds = Number(values.seconds);
  const connections = Number(values.connections);
  for (const t of [base, ...chosen]) await runLoad(server.url, t, connections, 1); // warm-up
  for (let round = 0; round < Number(values.rounds); round++) {
    for (const t of values["no-baseline"] ? chosen : [base, ...chosen]) {
      const cpu0 = cpuMs(server.pid) ?? 0;
      const r = await runLoad(server.url, t, connections, seconds);
      // Server CPU per request: unlike req/s, it hardly depends on what else the machine runs.
      const cpuUs = (((cpuMs(server.pid) ?? 0) - cpu0) * 1000) / (r.reqPerSec * seconds || 1);
      console.log(
        `${t.name.padEnd(36)} ${r.reqPerSec.toFixed(0).padStart(6)} req/s  p50 ${r.p50Ms} ms  p99 ${r.p99Ms} ms  ` +
          `server CPU ${cpuUs.toFixed(0)} µs/req  ${r.bytesPerReq} B  non2xx ${r.non2xx}`,
      );
    }
  }
} finally {
  await server.stop();
}
if (values["cpu-prof"]) {
  const fresh = readdirSync(profDir).filter((f) => !before.has(f) && f.endsWith(".cpuprofile"));
  for (const f of fresh) console.log(summarizeProfile(JSON.parse(readFileSync(join(profDir, f), "utf8")), 30) + `\n(${join(profDir, f)})`);
}
