import { test } from "node:test";
import assert from "node:assert/strict";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { request } from "node:http";
import { freePort, roost, serve, tempDir } from "./cli-helpers.ts";

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
