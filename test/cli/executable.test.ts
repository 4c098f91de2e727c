import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { encodePng } from "../../src/media/png.ts";
import { freePort, ROOT, running, tempDir } from "./cli-helpers.ts";

// The single executable (npm run build:exe, issue 14 part 1), built once here (~30 s on a
// loaded 2-core machine) and run the way an operator would on a machine without Node: a
// PATH with no node or npm, a fresh home directory (where the runtime files go), and a working
// directory outside the checkout.

interface BuildReport {
  totalBytes: number;
  nodeBinaryBytes: number;
  groups: { name: string; bytes: number; compressedBytes: number }[];
}

const BUDGET_BYTES = 115e6;

test("dist/roost runs init, user create, serve, a post and an avatar over HTTP, status, backup create, verify and restore", { skip: process.platform !== "linux" || process.arch !== "x64" }, async (t) => {
  const dir = tempDir(t, "roost-exe-");
  const exe = join(dir, "bin", "roost");
  const { buildExecutable } = (await import(join(ROOT, "build-exe.mjs"))) as { buildExecutable(o: { out: string; quiet: boolean }): Promise<BuildReport> };
  const report = await buildExecutable({ out: exe, quiet: true });
  const mb = (n: number) => `${(n / 1e6).toFixed(1)} MB`;
  t.diagnostic(`executable ${mb(report.totalBytes)}: Node ${mb(report.nodeBinaryBytes)}, ${report.groups.map((g) => `${g.name} ${mb(g.compressedBytes)}`).join(", ")}`);
  assert.ok(report.totalBytes <= BUDGET_BYTES, `${mb(report.totalBytes)} within the ${mb(BUDGET_BYTES)} budget`);
  assert.equal(statSync(exe).size, report.totalBytes);

  const home = join(dir, "home");
  const env = { PATH: join(dir, "no-such-bin"), HOME: home, LANG: "C" };
  const run = (args: string[], stdin = "") =>
    new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
      const child = spawn(exe, args, { cwd: dir, env, stdio: ["pipe", "pipe", "pipe"] });
      let stdout = "";
      let stderr = "";
      child.stdout.on("data", (c: Buffer) => (stdout += c.toString("utf8")));
      child.stderr.on("data", (c: Buffer) => (stderr += c.toString("utf8")));
      child.stdin.end(stdin);
      child.once("close", (code) => resolve({ code, stdout, stderr }));
    });
  const ok = async (args: string[], stdin?: string) => {
    const r = await run(args, stdin);
    assert.equal(r.code, 0, `roost ${args.join(" ")}: ${r.stderr}`);
    return r.stdout.trim();
  };

  assert.equal(await ok(["--version"]), "0.1.0");
  const [runtime] = readdirSync(join(home, ".cache", "roost"));
  assert.match(runtime, /^0\.1\.0-[0-9a-f]{16}$/, "the runtime files went to ~/.cache/roost/<version>-<hash>");
  const stamp = join(home, ".cache", "roost", runtime, ".roost-runtime-stamp.json");
  const written = statSync(stamp).mtimeMs;
  // koffi (workers/native-heap.ts: malloc_trim once the pool is idle) with its JavaScript in
  // src/ and its native part in @koromix/koffi-linux-x64: complete enough to call libc.
  const koffi = (await import(join(home, ".cache", "roost", runtime, "node_modules", "koffi", "index.js"))) as typeof import("koffi");
  assert.equal(typeof koffi.default.load("libc.so.6").func("int malloc_trim(size_t pad)"), "function");

  const port = await freePort();
  const dd = ["--data-dir", join(dir, "data")];
  await ok(["init", ...dd, "--domain", `127.0.0.1:${port}`, "--protocol", "http"]);
  const aliceId = await ok(["user", "create", "alice", ...dd, "--email", "alice@example.test", "--password-stdin"], "correct horse battery\n");
  const token = await ok(["token", "create", "alice", ...dd]);

  const server = await running(spawn(exe, ["serve", ...dd, "--port", String(port)], { cwd: dir, env: { ...env, ROOST_LOG_LEVEL: "warn" }, stdio: ["pipe", "pipe", "pipe"] }));
  t.after(() => server.stop("SIGKILL"));
  const auth = { authorization: `Bearer ${token}` };
  const posted = await fetch(`${server.url}/api/v1/statuses`, {
    method: "POST",
    headers: { ...auth, "content-type": "application/json" },
    body: JSON.stringify({ status: "Hello from one file" }),
  });
  assert.equal(posted.status, 200);
  const status = await posted.json();
  assert.equal(status.content, "<p>Hello from one file</p>");
  // sharp and libvips, loaded from the runtime cache in a worker thread.
  const form = new FormData();
  const pixels = new Uint8Array(64 * 48 * 3).fill(180);
  form.append("avatar", new Blob([new Uint8Array(encodePng(64, 48, 3, pixels))], { type: "image/png" }), "me.png");
  const updated = await fetch(`${server.url}/api/v1/accounts/update_credentials`, { method: "PATCH", headers: auth, body: form });
  assert.equal(updated.status, 200, await updated.clone().text());
  const avatar = (await updated.json()).avatar as string;
  assert.match(avatar, new RegExp(`/system/accounts/avatars/${aliceId}/[A-Za-z0-9_-]+\\.png$`));
  const img = await fetch(avatar);
  assert.deepEqual([img.status, img.headers.get("content-type")], [200, "image/png"]);
  assert.equal(Buffer.from(await img.arrayBuffer()).readUInt32BE(16), 400, "resized to Mastodon's 400×400 avatar");

  const live = JSON.parse(await ok(["status", "--json", ...dd]));
  assert.equal(live.server.pid, server.pid);
  const archive = await ok(["backup", "create", ...dd]);
  assert.match(archive, /\/data\/backups\/roost-\d{8}-\d{6}\.tar\.gz$/);
  assert.match(await ok(["backup", "verify", archive]), /^verified: the backup restores$/m);
  assert.equal(await server.stop(), 0);

  const restoredDir = ["--data-dir", join(dir, "restored")];
  await ok(["backup", "restore", archive, ...restoredDir]);
  const started = Date.now();
  const again = await running(spawn(exe, ["serve", ...restoredDir, "--port", String(port)], { cwd: dir, env: { ...env, ROOST_LOG_LEVEL: "warn" }, stdio: ["pipe", "pipe", "pipe"] }));
  t.after(() => again.stop("SIGKILL"));
  t.diagnostic(`the executable served a restored instance ${Date.now() - started} ms after it was started`);
  const read = await fetch(`${again.url}/api/v1/statuses/${status.id}`);
  assert.equal(read.status, 200);
  assert.equal((await read.json()).content, "<p>Hello from one file</p>");
  assert.equal((await fetch(avatar.replace(server.url, again.url))).status, 200, "the avatar file came back with the backup");
  assert.equal(await again.stop(), 0);
  assert.equal(statSync(stamp).mtimeMs, written, "the runtime files were written once, by the first command");
});
