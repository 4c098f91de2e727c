// The access log: one JSON line per request at `info`, with the query's credentials redacted,
// so an admin can see which call an app made and what it got back.
import { test } from "node:test";
import assert from "node:assert/strict";
import { createLog } from "../../src/lib/log.ts";
import { eventually } from "../helpers/fake-remote.ts";
import { startTestServer } from "../helpers/server.ts";

test("one JSON line per request at info: method, redacted path, status, duration, account, request id", async (t) => {
  const lines: string[] = [];
  const s = await startTestServer({ config: { logLevel: "info" }, logTo: (l) => lines.push(l) });
  t.after(() => s.close());
  const alice = await s.user("alice");
  const entries = () => lines.map((l) => JSON.parse(l)).filter((e) => e.msg === "request");
  /** Sends a request and returns its access-log entry (written once the response is done). */
  const logged = async (method: string, path: string, headers: Record<string, string> = {}, body?: string) => {
    const res = await fetch(s.url + path, { method, headers, body });
    await res.arrayBuffer();
    // Preflights are answered before the request id header is set: found by method and path.
    const id = res.headers.get("x-request-id");
    const mine = (e: any) => (id ? e.requestId === id : e.method === method && e.path === path);
    return eventually(() => entries().find(mine), 5000, `the log line of ${method} ${path}`);
  };

  const me = await logged("GET", "/api/v1/accounts/verify_credentials", { authorization: `Bearer ${alice.token}` });
  assert.equal(me.level, "info");
  assert.equal(me.method, "GET");
  assert.equal(me.path, "/api/v1/accounts/verify_credentials");
  assert.equal(me.status, 200);
  assert.equal(me.accountId, alice.id);
  assert.equal(typeof me.durationMs, "number");
  assert.ok(me.durationMs >= 0 && me.durationMs < 60_000, String(me.durationMs));
  assert.ok(!Number.isNaN(Date.parse(me.time)));
  assert.equal(me.aborted, undefined);

  // A token in the query string authenticates, and is redacted with every other credential.
  const q = await logged("GET", `/api/v1/timelines/home?limit=2&access_token=${alice.token}`);
  assert.equal(q.path, "/api/v1/timelines/home?limit=2&access_token=[REDACTED]");
  assert.equal(q.status, 200);
  assert.equal(q.accountId, alice.id);
  const secrets = await logged(
    "GET",
    "/api/v1/timelines/public?limit=1&code=c0de&client_secret=s3cret&password=hunter2&token=t0ken&Bearer_Token=b34rer&q=two%20words",
  );
  assert.equal(
    secrets.path,
    "/api/v1/timelines/public?limit=1&code=[REDACTED]&client_secret=[REDACTED]&password=[REDACTED]&token=[REDACTED]&Bearer_Token=[REDACTED]&q=two%20words",
  );

  // Failures are logged with their status, and without an account when the token is bad.
  const denied = await logged("GET", "/api/v1/accounts/verify_credentials", { authorization: "Bearer not-a-token" });
  assert.equal(denied.status, 401);
  assert.equal(denied.accountId, undefined);
  const invalid = await logged("POST", "/api/v1/statuses", { authorization: `Bearer ${alice.token}`, "content-type": "application/json" }, "{}");
  assert.deepEqual([invalid.method, invalid.status, invalid.accountId], ["POST", 422, alice.id]);
  const missing = await logged("GET", "/api/v1/no_such_thing");
  assert.deepEqual([missing.path, missing.status], ["/api/v1/no_such_thing", 404]);
  const preflight = await logged("OPTIONS", "/api/v1/statuses", { origin: "https://elk.zone", "access-control-request-method": "POST" });
  assert.equal(preflight.status, 204);
  assert.match(preflight.requestId, /^[0-9a-f-]{36}$/);

  const all = lines.join("");
  for (const secret of [alice.token, "c0de", "s3cret", "hunter2", "t0ken", "b34rer"]) assert.ok(!all.includes(secret), `${secret} is not in the log`);
  assert.equal(entries().length, 7, "one line per request");

  // logLevel decides: above info, no access lines. (A line is written when its response is
  // done, before the next request arrives: the info line of the request after proves it.)
  const quiet: string[] = [];
  const info = s.app.log;
  s.app.log = createLog("warn", (l) => quiet.push(l));
  const unlogged = await fetch(`${s.url}/api/v1/instance`);
  assert.equal(unlogged.status, 200);
  await unlogged.arrayBuffer();
  s.app.log = info;
  assert.equal((await logged("GET", "/api/v1/instance")).status, 200);
  assert.deepEqual(quiet, []);
  assert.equal(entries().length, 8);
  assert.equal(entries().filter((e) => e.requestId === unlogged.headers.get("x-request-id")).length, 0);
});
