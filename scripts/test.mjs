// Runs every test/**/*.test.ts file with node:test (Node 20 has no glob support in --test).
import { readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { spawnSync } from "node:child_process";

function collect(dir) {
  const out = [];
  for (const name of readdirSync(dir).sort()) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) out.push(...collect(p));
    else if (name.endsWith(".test.ts")) out.push(p);
  }
  return out;
}

const filter = process.argv.slice(2);
let files = collect("test");
if (filter.length) files = files.filter((f) => filter.some((x) => f.includes(x)));
const r = spawnSync(
  process.execPath,
  // A test that hangs fails after 3 minutes (the slowest takes ~20 s) instead of stalling CI.
  ["--import", "tsx", "--test", "--test-concurrency=2", "--test-timeout=180000", "--test-reporter=spec", ...files],
  { stdio: "inherit", env: { ...process.env, ROOST_LOG_LEVEL: process.env.ROOST_LOG_LEVEL ?? "silent" } },
);
process.exit(r.status ?? 1);
