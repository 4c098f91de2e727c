import { test } from "node:test";
import assert from "node:assert/strict";
import { generateKeyPairSync, randomBytes } from "node:crypto";
import { request } from "node:http";
import { startTestServer, type TestServer } from "../helpers/server.ts";
import { TestSocket } from "../helpers/streaming.ts";

// Sends malformed input to every registered route and asserts that none answers 5xx or
// leaks a stack trace: wrong types, malformed bodies, huge strings, unknown and malformed ids,
// missing and insufficient tokens.

const PATH_VALUES = ["abc", "-1", "9223372036854775808", "1", "%00", "..%2F..%2Fetc%2Fpasswd"];
const HUGE = "x".repeat(200_000);

// Any public key will do: the walk never gets a signed response.
const WALK_SAML_CERT = generateKeyPairSync("rsa", { modulusLength: 1024 }).publicKey.export({ type: "spki", format: "pem" }).toString();

const PARAM_NAMES = [
  "id", "status", "limit", "max_id", "min_id", "since_id", "acct", "resource", "username", "email",
  "password", "agreement", "locale", "reason", "display_name", "note", "locked", "bot", "discoverable",
  "fields_attributes", "source", "client_name", "redirect_uris", "redirect_uri", "scopes", "scope",
  "website", "grant_type", "code", "client_id", "client_secret", "code_verifier", "token", "response_type",
  "state", "code_challenge", "code_challenge_method", "force_login", "avatar", "header", "file",
  "description", "media_ids", "visibility", "in_reply_to_id", "spoiler_text", "poll", "types",
  "exclude_types", "account_id", "q", "type", "offset", "local", "remote", "only_media", "authenticity_token",
  "scheduled_at", "choices", "title", "context", "filter_action", "expires_in", "keywords_attributes", "keyword",
  "whole_word", "phrase", "irreversible", "status_id", "action_type",
  "name", "avatar_description", "header_description", "attribution_domains", "show_media", "show_featured",
  "url", "maxwidth", "maxheight",
  "grouped_types", "expand_accounts", "include_filtered", "for_not_following", "for_private_mentions", "filter_not_following",
  "resolve", "following", "exclude_unreviewed", "order",
  // The admin API's (alice is the owner, so its routes are walked past the permission check).
  "report_id", "warning_preset_id", "text", "send_email_notification", "category", "rule_ids", "origin", "ip",
  "role_ids", "invited_by", "permissions", "resolved", "unresolved", "target_account_id", "by_domain", "staff",
  "subscription", "data", "severity", "comment", "canonical_email_hash", "trendable", "usable", "listable", "reviewed", "unreviewed", "pending_review",
  "starts_at", "ends_at", "all_day", "with_dismissed",
  // Invites and the mailed links.
  "invite_code", "confirmation_token", "reset_password_token", "password_confirmation",
  // The settings forms.
  "current_password", "checkboxes", "sensitive", "indexable", "hide_collections",
  // Moving and deleting (settings pages).
  "alias",
  // The settings import form.
  "form_import",
  // The post history import form.
  "archive", "send_to_followers",
  // External sign-in (CAS and OIDC are configured for the walk, pointing at a closed port).
  "ticket", "return_to", "SAMLResponse", "RelayState",
  // Admin measures, dimensions and retention, with the per-key option hashes (tag_uses[id], instance_statuses[domain]).
  "keys", "start_at", "end_at", "frequency", "tag_accounts", "tag_uses", "tag_servers", "tag_languages", "instance_accounts",
  "instance_media_attachments", "instance_reports", "instance_statuses", "instance_follows", "instance_followers", "instance_languages",
];

// A long string for every name at once, sized so that the body stays under the 1 MB limit
// and reaches the handlers: 200 KB for each name made a 30+ MB body that every non-GET route
// refused with 413 from its content-length, and building and sending it was most of the walk's
// time, growing with each name added here. Over-limit bodies are walked below, and 1 MB values
// per parameter by route-walk-huge.test.ts.
const LONG = "x".repeat(Math.floor(900_000 / PARAM_NAMES.length));

function wrongTypes(): Record<string, unknown>[] {
  const shapes: unknown[] = [[], {}, [[{}]], { a: { b: { c: 1 } } }, 12345678901234567890, -1, true, null, LONG, "", " "];
  return shapes.map((v) => Object.fromEntries(PARAM_NAMES.map((n) => [n, v])));
}

function formGarbage(): URLSearchParams {
  const f = new URLSearchParams();
  for (const n of PARAM_NAMES) {
    f.append(`${n}[]`, "1");
    f.append(n, "2");
    f.append(`${n}[a][b][c][d][e][f][g][h][i][j]`, "deep");
    f.append(`${n}[__proto__][polluted]`, "yes");
  }
  f.append("[]", "x");
  f.append("a]b[", "y");
  return f;
}

function multipartGarbage(): FormData {
  const f = new FormData();
  for (const n of ["file", "avatar", "header", "thumbnail"]) {
    f.append(n, new Blob([Buffer.from("definitely not an image")], { type: "image/png" }), "x.png");
  }
  for (const n of PARAM_NAMES) f.append(n, new Blob([Buffer.from("blob as scalar")]), "y.bin");
  f.append("fields_attributes[0][name]", "n");
  f.append("fields_attributes[0][value]", HUGE);
  return f;
}

test("no route answers 5xx to malformed input", { timeout: 240_000 }, async (t) => {
  const s = await startTestServer({ config: { casUrl: "http://127.0.0.1:9/cas", oidcIssuer: "http://127.0.0.1:9/oidc", oidcClientId: "walk", samlEntryPoint: "http://127.0.0.1:9/sso", samlIdpCert: WALK_SAML_CERT } });
  t.after(() => s.close());
  const alice = await s.user("alice", { role: "owner", scopes: ["read", "write", "follow", "push", "admin:read", "admin:write"] });
  const readOnly = await s.user("bob", { scopes: ["read:statuses"] });
  const failures: string[] = [];
  let requests = 0;

  const check = async (method: string, path: string, who: string | null, body?: unknown, headers?: Record<string, string>) => {
    requests++;
    let r;
    try {
      r = await s.req(who, method, path, body, headers);
    } catch (e) {
      failures.push(`${method} ${path}: request failed: ${(e as Error).message}`);
      return;
    }
    if (r.status >= 500) failures.push(`${method} ${path} (${who ? "token" : "anon"}) → ${r.status}: ${r.text.slice(0, 200)}`);
    if (/\bat [\w.<>]+ \(.*:\d+:\d+\)/.test(r.text)) failures.push(`${method} ${path} leaked a stack trace`);
  };

  const seen = new Set<string>();
  for (const route of s.routes) {
    const key = `${route.method} ${route.path}`;
    if (seen.has(key)) continue;
    seen.add(key);
    const hasParams = /:\w+|\*\*?/.test(route.path);
    const paths = hasParams
      ? PATH_VALUES.map((v) => route.path.replace(/:\w+/g, v).replace(/\*\*?/g, v))
      : [route.path];
    for (const path of paths) {
      await check(route.method, path, null);
      await check(route.method, path, alice.token);
      await check(route.method, path, readOnly.token);
      await check(route.method, path, "not-a-real-token");
      await check(route.method, `${path}?limit=abc&max_id=xyz&id[]=[]&min_id=-5&since_id=1e99`, alice.token);
    }
    const path = paths[paths.length - 1];
    if (route.method !== "GET") {
      await check(route.method, path, alice.token, "{not json", { "content-type": "application/json" });
      await check(route.method, path, alice.token, "[1,2,3]", { "content-type": "application/json" });
      await check(route.method, path, alice.token, "--broken\r\n", { "content-type": "multipart/form-data; boundary=zzz" });
      for (const body of wrongTypes()) await check(route.method, path, alice.token, body);
      await check(route.method, path, alice.token, formGarbage());
      await check(route.method, path, alice.token, multipartGarbage());
      await check(route.method, path, alice.token, JSON.stringify({ status: "x".repeat(3 * 1024 * 1024) }), {
        "content-type": "application/json",
      });
    }
  }
  assert.ok(seen.size >= 5, `only ${seen.size} routes registered`);
  assert.ok(requests > seen.size * 5);
  assert.deepEqual(failures, []);
  // The server is still healthy afterwards and the prototype was not polluted.
  assert.equal((await s.req(null, "GET", "/health")).text, "OK");
  assert.equal(({} as Record<string, unknown>).polluted, undefined);
});

/** A raw WebSocket handshake: the status (101 when upgraded, the socket then dropped), or an error. */
function handshake(s: TestServer, path: string, headers: Record<string, string>): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request(s.url + path, {
      agent: false,
      headers: { connection: "Upgrade", upgrade: "websocket", "sec-websocket-version": "13", "sec-websocket-key": randomBytes(16).toString("base64"), ...headers },
    });
    const guard = setTimeout(() => {
      req.destroy();
      reject(new Error(`no answer to the upgrade of ${path}`));
    }, 10_000);
    req.on("upgrade", (res, socket) => {
      clearTimeout(guard);
      socket.destroy();
      resolve(res.statusCode ?? 0);
    });
    req.on("response", (res) => {
      clearTimeout(guard);
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    req.on("error", (e) => {
      clearTimeout(guard);
      reject(e);
    });
    req.end();
  });
}

test("WebSocket upgrades of every route with garbage: never a 5xx; garbage frames close only their socket", { timeout: 240_000 }, async (t) => {
  const s = await startTestServer();
  t.after(() => s.close());
  const alice = await s.user("alice");
  const failures: string[] = [];
  const garbageQuery = `?stream=${encodeURIComponent("x".repeat(5000))}&tag[]=1&list=-1&only_media=%00&access_token=`;
  const seen = new Set<string>();
  for (const route of s.routes) {
    if (seen.has(route.path)) continue;
    seen.add(route.path);
    const path = route.path.replace(/:\w+/g, "abc").replace(/\*\*?/g, "abc");
    for (const [label, headers, query] of [
      ["token + garbage query", { authorization: `Bearer ${alice.token}` }, garbageQuery],
      ["garbage protocol", { "sec-websocket-protocol": "not-a-token, second" }, ""],
      ["anonymous", {}, "?stream=public"],
    ] as const) {
      try {
        const status = await handshake(s, path + query, headers);
        if (status >= 500 || status === 0) failures.push(`${path} (${label}) → ${status}`);
      } catch (e) {
        failures.push(`${path} (${label}): ${(e as Error).message}`);
      }
    }
  }
  assert.ok(seen.size >= 5);
  assert.deepEqual(failures, []);

  // Accepted sockets fed garbage: each bad one is closed or answered with an error frame, and
  // a well-behaved socket opened first keeps working.
  const good = await TestSocket.open(s, alice.token);
  const frames: unknown[] = ["", "null", "{}", '{"type":"subscribe"}', '{"type":"subscribe","stream":{}}', '{"type":"subscribe","stream":"list","list":{"a":1}}',
    '{"type":"subscribe","stream":"hashtag","tag":["x"]}', '{"type":"unsubscribe","stream":null}', JSON.stringify({ type: "subscribe", stream: "x".repeat(60_000) }), "\u0000".repeat(100)];
  const bad = await TestSocket.open(s, alice.token);
  for (const f of frames) bad.send(f as string);
  bad.ws.send(randomBytes(100_000), { binary: true });
  assert.ok([1003, 1009].includes((await bad.closed).code));
  good.subscribe("public");
  const p = await s.api(alice, "POST", "/api/v1/statuses", { status: "still serving" });
  await s.drainJobs();
  assert.equal(JSON.parse((await good.nextEvent()).payload!).id, p.id);
  good.close();
  assert.equal((await s.req(null, "GET", "/health")).text, "OK");
});

test("oversized bodies are refused with 413 and a JSON error", async (t) => {
  const s = await startTestServer({ config: { maxBodyBytes: 4096 } });
  t.after(() => s.close());
  const r = await s.req(null, "POST", "/api/v1/apps", JSON.stringify({ client_name: "x".repeat(10_000) }), {
    "content-type": "application/json",
  });
  assert.equal(r.status, 413);
  assert.deepEqual(r.body, { error: "Payload Too Large" });
});
