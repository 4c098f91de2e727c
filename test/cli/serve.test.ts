import { test } from "node:test";
import assert from "node:assert/strict";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { request } from "node:http";
import { spawn } from "node:child_process";
import Database from "better-sqlite3";
import { databasePath } from "../../src/services/init.ts";
import { eventually } from "../helpers/fake-remote.ts";
import { cleanEnv, freePort, pidsWith, roost, ROOT, running, serve, tempDir } from "./cli-helpers.ts";

test("zero-config serve initialises an empty dir, serves CLI-made users and tokens, sees CLI confirmations, stops on SIGTERM", async (t) => {
  const dataDir = join(tempDir(t), "data");
  const port = await freePort();
  const server = await serve(["--data-dir", dataDir, "--port", String(port)]);
  t.after(() => server.stop());
  assert.equal(server.url, `http://127.0.0.1:${port}`);
  const config = JSON.parse(readFileSync(join(dataDir, "config.json"), "utf8"));
  assert.equal(config.domain, `localhost:${port}`);
  assert.equal(config.protocol, "http");

  const health = await fetch(`${server.url}/health`);
  assert.equal(await health.text(), "OK");

  // The CLI works next to the running server (same SQLite database, WAL).
  const user = await roost(["user", "create", "bob", "--data-dir", dataDir, "--email", "bob@example.test", "--password", "correct horse battery"]);
  assert.equal(user.code, 0, user.stderr);
  const tok = await roost(["token", "create", "bob", "--data-dir", dataDir, "--scopes", "read"]);
  assert.equal(tok.code, 0, tok.stderr);
  const res = await fetch(`${server.url}/api/v1/apps/verify_credentials`, { headers: { authorization: `Bearer ${tok.stdout.trim()}` } });
  assert.equal(res.status, 200);
  assert.equal((await res.json()).name, "Roost CLI");

  // A sign-up through the API is refused until `roost user confirm`, which the running server
  // notices at once (the command commits from another process).
  const post = (path: string, body: Record<string, string>, token?: string) =>
    fetch(`${server.url}${path}`, {
      method: "POST",
      headers: { "content-type": "application/json", ...(token ? { authorization: `Bearer ${token}` } : {}) },
      body: JSON.stringify(body),
    }).then((r) => r.json());
  const client = await post("/api/v1/apps", { client_name: "Signup", redirect_uris: "urn:ietf:wg:oauth:2.0:oob", scopes: "read write" });
  const appTok = await post("/oauth/token", { grant_type: "client_credentials", client_id: client.client_id, client_secret: client.client_secret, scope: "read write" });
  const signUp = await post("/api/v1/accounts", { username: "newbie", email: "newbie@example.test", password: "long enough pw", agreement: "true" }, appTok.access_token);
  const me = () => fetch(`${server.url}/api/v1/accounts/verify_credentials`, { headers: { authorization: `Bearer ${signUp.access_token}` } });
  const refused = await me();
  assert.equal(refused.status, 403);
  assert.deepEqual(await refused.json(), { error: "Your login is missing a confirmed e-mail address" });
  const confirm = await roost(["user", "confirm", "newbie", "--data-dir", dataDir]);
  assert.deepEqual([confirm.code, confirm.stdout, confirm.stderr], [0, "", "confirmed newbie\n"]);
  const allowed = await me();
  assert.equal(allowed.status, 200);
  assert.equal((await allowed.json()).username, "newbie");

  assert.equal(await server.stop(), 0);
  assert.equal(server.stderr().match(/^listening on /gm)?.length, 1, "one listening line");
});

test("bad settings stop a command with a one-line message before anything is written", async (t) => {
  const dir = tempDir(t);
  const empty = join(dir, "empty");

  const port = await roost(["serve", "--data-dir", empty], { env: { ROOST_PORT: "abc" } });
  assert.equal(port.code, 1);
  assert.equal(port.stderr, 'error: invalid port (ROOST_PORT): "abc" is not an integer\n');
  assert.equal(existsSync(join(empty, "config.json")), false, "nothing initialised");

  const reg = await roost(["serve", "--data-dir", empty], { env: { ROOST_REGISTRATIONS: "maybe" } });
  assert.equal(reg.code, 1);
  assert.equal(reg.stderr, 'error: invalid registrations (ROOST_REGISTRATIONS): "maybe" is not one of open, approval, closed\n');

  const broken = join(dir, "broken");
  mkdirSync(broken);
  writeFileSync(join(broken, "config.json"), JSON.stringify({ domain: "a.example", titel: "typo" }));
  const file = await roost(["token", "create", "alice", "--data-dir", broken]);
  assert.equal(file.code, 1);
  assert.equal(file.stderr, `error: unknown setting "titel" in ${join(broken, "config.json")}\n`);
});

test("--help lists every command", async () => {
  const r = await roost(["--help"]);
  assert.equal(r.code, 0);
  for (const cmd of ["init", "serve", "user", "token", "backup", "migrate"]) assert.match(r.stdout, new RegExp(`^  ${cmd}\\b`, "m"));
  assert.match(r.stdout, /--data-dir <dir>/);
});

test("SIGINT: a request in flight is finished, new connections are refused, exit code 0", async (t) => {
  const dataDir = join(tempDir(t), "data");
  const port = await freePort();
  const server = await serve(["--data-dir", dataDir, "--port", String(port)]);
  t.after(() => server.stop());
  const body = JSON.stringify({ client_name: "slow app", redirect_uris: "urn:ietf:wg:oauth:2.0:oob" });
  let exit: Promise<number | null> | undefined;
  const response = new Promise<{ status: number; text: string }>((resolve, reject) => {
    const req = request(`${server.url}/api/v1/apps`, {
      method: "POST",
      headers: { "content-type": "application/json", "content-length": String(Buffer.byteLength(body)) },
    });
    req.on("response", (res) => {
      let text = "";
      res.on("data", (c: Buffer) => (text += c.toString("utf8")));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, text }));
    });
    req.on("error", reject);
    req.write(body.slice(0, 10));
    // The rest of the body arrives after the signal.
    req.on("socket", (sock) =>
      sock.on("connect", () =>
        setTimeout(() => {
          exit = server.stop("SIGINT");
          setTimeout(() => req.end(body.slice(10)), 300);
        }, 200),
      ),
    );
  });
  const res = await response;
  assert.equal(res.status, 200, res.text);
  assert.equal(JSON.parse(res.text).name, "slow app");
  await assert.rejects(fetch(`${server.url}/health`), "no new connections after the signal");
  assert.equal(await exit, 0);
});

test("a second SIGTERM ends the server at once, even while a request holds the event loop", async (t) => {
  const dataDir = join(tempDir(t), "data");
  const port = await freePort();
  const server = await serve(["--data-dir", dataDir, "--port", String(port)], { ROOST_LOG_LEVEL: "info" });
  t.after(() => server.stop("SIGKILL"));
  const body = JSON.stringify({ client_name: "stuck app", redirect_uris: "urn:ietf:wg:oauth:2.0:oob" });
  const req = request(`${server.url}/api/v1/apps`, {
    method: "POST",
    headers: { "content-type": "application/json", "content-length": String(Buffer.byteLength(body)) },
  });
  const outcome = new Promise<string>((resolve) => {
    req.on("response", (res) => resolve(`answered ${res.statusCode}`));
    req.on("error", (e: NodeJS.ErrnoException) => resolve(e.code ?? e.message));
  });
  req.write(body.slice(0, 10));
  // A request made after it has been answered: by then the server has read the first one's head.
  assert.equal((await fetch(`${server.url}/health`)).status, 200);
  server.signal("SIGTERM");
  await eventually(() => server.stderr().includes('"msg":"stopping"'), 10_000, "the stopping line");

  // Another process takes SQLite's write lock, as a long command could: the server's next write
  // waits for it synchronously (busy_timeout, 5 s), and its whole event loop with it.
  const db = new Database(databasePath(dataDir));
  t.after(() => db.close());
  db.prepare("BEGIN IMMEDIATE").run();
  // The rest of the body: the request runs into the lock, and the second signal comes.
  req.end(body.slice(10));
  assert.equal(await server.stop("SIGTERM"), null);
  assert.equal(server.exitSignal(), "SIGTERM", "ended by the signal itself, not by a handler that had to wait its turn");
  assert.equal(await outcome, "ECONNRESET", "the stuck request was cut, not answered");
  assert.equal(db.inTransaction, true, "while the lock was still held");
});

test("kill on the npm process of `npm start` or `npx roost serve` stops the server as well", { skip: process.platform !== "linux" }, async (t) => {
  const dir = tempDir(t);
  const launchers = [
    ["npm", ["start", "--"]],
    ["npx", ["roost", "serve"]],
  ] as const;
  await Promise.all(
    launchers.map(async ([cmd, args]) => {
      const dataDir = join(dir, cmd);
      const port = await freePort();
      const child = spawn(cmd, [...args, "--data-dir", dataDir, "--port", String(port)], {
        cwd: ROOT,
        env: cleanEnv({ ROOST_LOG_LEVEL: "info" }),
        stdio: ["pipe", "ignore", "pipe"],
      });
      const server = await running(child);
      t.after(() => {
        for (const pid of pidsWith(dataDir)) process.kill(pid, "SIGKILL");
      });
      assert.equal((await fetch(`${server.url}/health`)).status, 200);
      const [roostPid] = pidsWith(dataDir).filter((pid) => pid !== server.pid && /node/.test(readFileSync(`/proc/${pid}/comm`, "utf8")));
      assert.ok(roostPid, `${cmd}: the server process`);
      // What `kill $!` does in a shell that started the launcher in the background. (Not
      // server.stop(): that waits for the stderr pipe, which an orphaned server keeps open.)
      const exited = new Promise((resolve) => child.once("exit", resolve));
      child.kill("SIGTERM");
      await exited;
      await eventually(() => pidsWith(dataDir).length === 0, 15_000, `${cmd}: every process of the server has exited`);
      assert.match(server.stderr(), /"msg":"stopping","reason":"parent exited"/, `${cmd}: a clean stop`);
      await assert.rejects(fetch(`${server.url}/health`));
    }),
  );
});
