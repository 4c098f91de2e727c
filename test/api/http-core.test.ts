import { test } from "node:test";
import assert from "node:assert/strict";
import { connect } from "node:net";
import { startTestServer } from "../helpers/server.ts";
import { signIn } from "../../src/services/web-sessions.ts";
import { SESSION_COOKIE } from "../../src/http/cookies.ts";

// HTTP core rules that apps and browsers rely on: CORS preflights, the API never
// authenticating by session cookie (public endpoints stay cacheable), removed endpoints.

test("CORS preflight answers for the API and the token endpoint, not for the web pages", async (t) => {
  const s = await startTestServer();
  t.after(() => s.close());
  const preflight = (path: string) =>
    fetch(s.url + path, {
      method: "OPTIONS",
      headers: { origin: "https://elk.zone", "access-control-request-method": "POST", "access-control-request-headers": "authorization, content-type" },
    });
  const api = await preflight("/api/v1/statuses");
  assert.equal(api.status, 204);
  assert.equal(api.headers.get("access-control-allow-origin"), "*");
  assert.equal(api.headers.get("access-control-allow-methods"), "GET, POST, PUT, PATCH, DELETE, OPTIONS");
  assert.equal(api.headers.get("access-control-allow-headers"), "authorization, content-type");
  assert.equal(api.headers.get("access-control-max-age"), "7200");
  assert.match(api.headers.get("access-control-expose-headers") ?? "", /\bLink\b/);
  const token = await preflight("/oauth/token");
  assert.equal(token.status, 204);
  assert.equal(token.headers.get("access-control-allow-methods"), "POST, OPTIONS");
  const page = await preflight("/auth/sign_in");
  assert.equal(page.headers.get("access-control-allow-origin"), null, "the sign-in form is not open to other origins");
  const get = await s.req(null, "GET", "/api/v1/instance", undefined, { origin: "https://elk.zone" });
  assert.equal(get.headers.get("access-control-allow-origin"), "*");
});

test("the API ignores session cookies: no login through them, public answers stay public", async (t) => {
  const s = await startTestServer();
  t.after(() => s.close());
  const alice = await s.user("alice");
  await s.api(alice, "POST", "/api/v1/statuses", { status: "hello" });
  const session = await signIn(s.app, { login: "alice@example.test", password: "correct horse battery", userAgent: null, ip: null });
  assert.ok(session.ok);
  const cookie = { cookie: `${SESSION_COOKIE}=${(session as { sessionId: string }).sessionId}` };

  const me = await s.req(null, "GET", "/api/v1/accounts/verify_credentials", undefined, cookie);
  assert.equal(me.status, 401);
  assert.deepEqual(me.body, { error: "The access token is invalid" });

  const anon = await s.req(null, "GET", "/api/v1/timelines/public");
  const withCookie = await s.req(null, "GET", "/api/v1/timelines/public", undefined, cookie);
  assert.equal(withCookie.status, 200);
  assert.equal(withCookie.headers.get("cache-control"), anon.headers.get("cache-control"));
  assert.match(withCookie.headers.get("cache-control") ?? "", /^public/);
  assert.equal(withCookie.body[0].favourited, undefined, "no viewer flags: the cookie did not identify anyone");
  assert.equal(withCookie.headers.get("set-cookie"), null);
});

test("removed endpoints do not exist: the generic 404, not a record lookup", async (t) => {
  const s = await startTestServer();
  t.after(() => s.close());
  const alice = await s.user("alice");
  const post = await s.api(alice, "POST", "/api/v1/statuses", { status: "a post with a real id" });
  for (const path of ["/api/v1/search?q=x", `/api/v1/statuses/${post.id}/card`, "/api/v1/timelines/direct"]) {
    for (const who of [null, alice]) {
      const r = await s.req(who, "GET", path);
      assert.equal(r.status, 404, path);
      assert.deepEqual(r.body, { error: "Not Found" }, path);
    }
  }
});

/** The status line exactly as sent (fetch hides the reason phrase), over a raw socket. */
function statusLine(base: string, method: string, path: string, headers: Record<string, string> = {}, body = ""): Promise<string> {
  const { hostname, port } = new URL(base);
  const head = Object.entries({ host: `${hostname}:${port}`, connection: "close", "content-length": String(Buffer.byteLength(body)), ...headers })
    .map(([k, v]) => `${k}: ${v}\r\n`)
    .join("");
  return new Promise((resolve, reject) => {
    let got = "";
    // Written, not ended: like any HTTP/1.1 client, the socket stays open for the answer (the
    // server closes it, `connection: close`). A half-closed request may be dropped by node
    // before an asynchronous answer, such as a write waiting for its commit's sync.
    const sock = connect(Number(port), hostname, () => sock.write(`${method} ${path} HTTP/1.1\r\n${head}\r\n${body}`));
    sock.on("data", (c: Buffer) => (got += c.toString("latin1")));
    sock.on("error", reject);
    sock.on("close", () => resolve(got.slice(0, got.indexOf("\r\n"))));
  });
}

test("every response carries the standard reason phrase: success, errors, redirects, 204", async (t) => {
  const s = await startTestServer();
  t.after(() => s.close());
  const alice = await s.user("alice");
  const auth = { authorization: `Bearer ${alice.token}` };
  const json = { ...auth, "content-type": "application/json" };
  const cases: [string, string, Record<string, string>, string, string][] = [
    ["GET", "/api/v1/instance", {}, "", "HTTP/1.1 200 OK"],
    ["GET", "/api/v1/no_such_thing", {}, "", "HTTP/1.1 404 Not Found"],
    ["GET", "/api/v1/accounts/verify_credentials", {}, "", "HTTP/1.1 401 Unauthorized"],
    ["POST", "/api/v1/statuses", json, "{}", "HTTP/1.1 422 Unprocessable Entity"],
    ["POST", "/api/v1/statuses", json, "{not json", "HTTP/1.1 400 Bad Request"],
    ["DELETE", "/api/v1/statuses/1", auth, "", "HTTP/1.1 404 Not Found"],
    ["OPTIONS", "/api/v1/statuses", { origin: "https://elk.zone", "access-control-request-method": "POST" }, "", "HTTP/1.1 204 No Content"],
    ["GET", "/users/alice", { accept: "text/html" }, "", "HTTP/1.1 301 Moved Permanently"],
    ["GET", "/.well-known/webfinger?resource=acct:nobody@nowhere.example", {}, "", "HTTP/1.1 404 Not Found"],
  ];
  for (const [method, path, headers, body, expected] of cases) {
    assert.equal(await statusLine(s.url, method, path, headers, body), expected, `${method} ${path}`);
  }
});
