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

// The CLI tests run `roost` as a subprocess a few hundred times. Through tsx each start
// compiles and loads ~400 modules (about a second of CPU); the bundle that `npm run build`
// makes starts in a fraction of that. It is built once here, inside node_modules so that it
// resolves the external packages, and the tests run it (test/cli/cli-helpers.ts).
const bundleDir = join("node_modules", ".cache", "roost-test");
const { buildBundle } = await import("../build.mjs");
await buildBundle({ outdir: bundleDir, quiet: true });
const cliBundle = join(process.cwd(), bundleDir, "roost.mjs");
let files = collect("test");
if (filter.length) files = files.filter((f) => filter.some((x) => f.includes(x)));
const r = spawnSync(
  process.execPath,
  // A test that hangs fails after 3 minutes (the slowest takes ~20 s) instead of stalling CI.
  ["--import", "tsx", "--test", "--test-concurrency=2", "--test-timeout=180000", "--test-reporter=spec", ...files],
  { stdio: "inherit", env: { ...process.env, ROOST_LOG_LEVEL: process.env.ROOST_LOG_LEVEL ?? "silent", ROOST_TEST_CLI_BUNDLE: cliBundle } },
);
process.exit(r.status ?? 1);
