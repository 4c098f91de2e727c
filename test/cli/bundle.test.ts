import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { rmSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { cleanEnv, tempDir } from "./cli-helpers.ts";

// The single-file bundle (npm run build) must run on its own: migrations embedded, and the
// worker pool loading dist/worker.mjs (`user create` generates the account's keys there).
const ROOT = fileURLToPath(new URL("../../", import.meta.url));

function run(bundle: string, args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, [join(bundle, "roost.mjs"), ...args], { cwd: ROOT, env: cleanEnv(), stdio: ["ignore", "pipe", "pipe"] });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (c: Buffer) => (stdout += c.toString("utf8")));
  child.stderr.on("data", (c: Buffer) => (stderr += c.toString("utf8")));
  return new Promise((resolve) => child.once("close", (code) => resolve({ code, stdout, stderr })));
}

test("the bundle initialises a data dir and creates a user with keys made in the bundled worker", async (t) => {
  // Inside node_modules so the bundle resolves its external packages (better-sqlite3, piscina).
  const bundle = join(ROOT, "node_modules", ".cache", `roost-test-bundle-${process.pid}`);
  t.after(() => rmSync(bundle, { recursive: true, force: true }));
  const { buildBundle } = (await import(join(ROOT, "build.mjs"))) as { buildBundle(o: { outdir: string; quiet: boolean }): Promise<void> };
  await buildBundle({ outdir: bundle, quiet: true });

  const dataDir = join(tempDir(t), "data");
  const init = await run(bundle, ["init", "--data-dir", dataDir, "--domain", "bundle.example"]);
  assert.equal(init.code, 0, init.stderr);
  const user = await run(bundle, ["user", "create", "alice", "--data-dir", dataDir, "--email", "alice@example.test", "--password", "correct horse battery"]);
  assert.equal(user.code, 0, user.stderr);
  assert.match(user.stdout, /^\d+\n$/);
  const token = await run(bundle, ["token", "create", "alice", "--data-dir", dataDir]);
  assert.equal(token.code, 0, token.stderr);
  assert.match(token.stdout, /^[A-Za-z0-9_-]{43}\n$/);
});
