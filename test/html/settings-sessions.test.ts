// Settings → Sessions and Authorized apps (issue 16 part 2): each sign-in is a session bound to
// its token, listed with its device, IP and last activity; revoking one (or all others) makes its
// token 401; maxSessions ends the oldest; signing out revokes the token; apps are listed and revoked.
import assert from "node:assert/strict";
import { test } from "node:test";
import { sha256Hex } from "../../src/lib/crypto.ts";
import { listSessions, sessionToken } from "../../src/services/web-sessions.ts";
import { findWebSessionByHash } from "../../src/storage/web-sessions.ts";
import { findTokenByHash, findTokenById } from "../../src/storage/tokens.ts";
import { cleanupOauth } from "../../src/jobs/handlers/oauth-cleanup.ts";
import { Browser, approve, authorizePath, codeFrom, exchangeCode, formWithButton, parseForms, registerApp } from "../api/oauth-helpers.ts";
import { startTestServer, type TestServer } from "../helpers/server.ts";

const FIREFOX = "Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0";
const PHONE = "Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Mobile Safari/537.36";

class UaBrowser extends Browser {
  constructor(base: string, readonly ua: string) {
    super(base);
  }
  override fetch(path: string, init: { method?: string; form?: Record<string, string>; headers?: Record<string, string> } = {}) {
    return super.fetch(path, { ...init, headers: { "user-agent": this.ua, ...init.headers } });
  }
}

async function signedIn(s: TestServer, login: string, ua: string): Promise<UaBrowser> {
  const b = new UaBrowser(s.url, ua);
  const res = await b.signIn(login);
  assert.equal(res.status, 302, res.text);
  return b;
}

/** The access token behind a browser's session cookie. */
function tokenOf(s: TestServer, b: Browser): string {
  const session = findWebSessionByHash(s.app.db, sha256Hex(decodeURIComponent(b.cookies.get("roost_session")!)));
  assert.ok(session, "the browser has a session");
  const token = sessionToken(s.app, session);
  assert.ok(token);
  return token;
}

const verify = (s: TestServer, token: string) => s.req(token, "GET", "/api/v1/accounts/verify_credentials").then((r) => r.status);

test("sessions are listed with device, IP and last activity; revoking one makes its token 401", async (t) => {
  const s = await startTestServer();
  t.after(() => s.close());
  const alice = await s.user("alice");
  const laptop = await signedIn(s, "alice", FIREFOX);
  const phone = await signedIn(s, "alice", PHONE);
  const phoneToken = tokenOf(s, phone);
  assert.equal(await verify(s, phoneToken), 200);

  const page = await laptop.fetch("/settings/sessions");
  assert.equal(page.status, 200, page.text);
  assert.match(page.text, /<td class="device">Firefox 128 on Linux<\/td><td class="ip">(::ffff:)?127\.0\.0\.1<\/td>/);
  assert.match(page.text, /<td class="device">Chrome 126 on Android<\/td>/);
  assert.equal((page.text.match(/This session/g) ?? []).length, 1);
  const revokeForms = parseForms(page.text).filter((f) => /^\/settings\/sessions\/\d+\/revoke$/.test(f.action));
  assert.equal(revokeForms.length, 1, "only the other session has a revoke button");

  // Without the CSRF token: refused, nothing revoked.
  const forged = await laptop.fetch(revokeForms[0].action, { form: { authenticity_token: "forged" } });
  assert.equal(forged.status, 422);
  assert.equal(await verify(s, phoneToken), 200);

  const done = await laptop.fetch(revokeForms[0].action, { form: revokeForms[0].fields });
  assert.deepEqual([done.status, done.location], [302, "/settings/sessions?notice=revoked"]);
  assert.equal(await verify(s, phoneToken), 401);
  // The phone is signed out; the laptop is not; the list holds one session.
  assert.equal((await phone.fetch("/settings/sessions")).status, 302);
  const after = await laptop.fetch("/settings/sessions?notice=revoked");
  assert.match(after.text, /The session was revoked\./);
  assert.equal(listSessions(s.app, alice.user).length, 1);

  // Another user's session id is not revocable from here.
  const bob = await s.user("bob");
  const bobs = await signedIn(s, "bob", PHONE);
  const bobSession = listSessions(s.app, bob.user)[0];
  const csrf = revokeForms[0].fields;
  const other = await laptop.fetch(`/settings/sessions/${bobSession.id}/revoke`, { form: csrf });
  assert.equal(other.location, "/settings/sessions?notice=gone");
  assert.equal(await verify(s, tokenOf(s, bobs)), 200);
});

test("revoking all other sessions keeps this one; last activity is written at most once a minute", async (t) => {
  const s = await startTestServer();
  t.after(() => s.close());
  const alice = await s.user("alice");
  const a = await signedIn(s, "alice", FIREFOX);
  const b = await signedIn(s, "alice", PHONE);
  const c = await signedIn(s, "alice", PHONE);
  const [tb, tc] = [tokenOf(s, b), tokenOf(s, c)];

  const t0 = s.app.now();
  const base = s.app.now;
  s.app.now = () => t0 + 30_000;
  await a.fetch("/settings/sessions");
  const mine = () => listSessions(s.app, alice.user).find((x) => x.userAgent === FIREFOX)!;
  assert.ok(mine().updatedAt < t0 + 30_000, "not written within a minute");
  s.app.now = () => t0 + 61_000;
  const page = await a.fetch("/settings/sessions");
  assert.equal(mine().updatedAt, t0 + 61_000);
  s.app.now = base;

  const form = formWithButton(page.text, "Sign out all other sessions");
  const res = await a.fetch(form.action, { form: form.fields });
  assert.deepEqual([res.status, res.location], [302, "/settings/sessions?notice=others"]);
  assert.deepEqual([await verify(s, tb), await verify(s, tc), await verify(s, tokenOf(s, a))], [401, 401, 200]);
  assert.deepEqual(listSessions(s.app, alice.user).map((x) => x.userAgent), [FIREFOX]);
  // The periodic cleanup then deletes the revoked tokens' rows; the live session's token stays.
  const ids = (await Promise.all([tb, tc, tokenOf(s, a)])).map((tok) => findTokenByHash(s.app.db, sha256Hex(tok))?.id);
  assert.ok(ids.every(Boolean));
  cleanupOauth(s.app);
  assert.deepEqual(ids.map((id) => findTokenById(s.app.db, id!) !== undefined), [false, false, true]);
});

test("maxSessions ends the oldest session; signing out revokes the session's token", async (t) => {
  const s = await startTestServer();
  t.after(() => s.close());
  const alice = await s.user("alice");
  (s.app.config as { maxSessions: number }).maxSessions = 2;
  const first = await signedIn(s, "alice", FIREFOX);
  const firstToken = tokenOf(s, first);
  s.app.now = ((n) => () => n)(s.app.now() + 1000);
  const second = await signedIn(s, "alice", PHONE);
  s.app.now = ((n) => () => n)(s.app.now() + 1000);
  await signedIn(s, "alice", PHONE);
  assert.equal(listSessions(s.app, alice.user).length, 2);
  assert.equal(await verify(s, firstToken), 401);
  assert.equal((await first.fetch("/settings/sessions")).location, "/auth/sign_in?return_to=%2Fsettings%2Fsessions");

  const secondToken = tokenOf(s, second);
  const page = await second.fetch("/settings/sessions");
  const out = formWithButton(page.text, "Sign out");
  const res = await second.fetch(out.action, { form: out.fields });
  assert.equal(res.status, 302);
  assert.equal(await verify(s, secondToken), 401);
  assert.equal(listSessions(s.app, alice.user).length, 1);
});

test("authorized apps are listed with their scopes; revoking one ends every token it holds", async (t) => {
  const s = await startTestServer();
  t.after(() => s.close());
  await s.user("alice");
  const b = await signedIn(s, "alice", FIREFOX);
  const client = await registerApp(s, { client_name: "Pinafore <b>", scopes: "read write" });
  const tokens: string[] = [];
  for (const scope of ["read", "write"]) {
    const code = codeFrom(await approve(b, authorizePath(client, { scope })));
    const res = await exchangeCode(s, client, code);
    assert.equal(res.status, 200, res.text);
    tokens.push(res.body.access_token);
  }
  const page = await b.fetch("/settings/applications");
  assert.equal(page.status, 200, page.text);
  assert.match(page.text, /<td class="name">Pinafore &#60;b&#62;<\/td><td class="scopes"><code>read write<\/code><\/td>/);
  assert.doesNotMatch(page.text, /<td class="name">Web<\/td>/, "the web app's tokens are the sessions");
  const form = parseForms(page.text).find((f) => f.action === `/settings/applications/${client.id}/revoke`)!;
  assert.ok(form, page.text);

  assert.equal((await b.fetch(form.action, { form: {} })).status, 422, "no CSRF token");
  assert.equal(await verify(s, tokens[0]), 200);
  const res = await b.fetch(form.action, { form: form.fields });
  assert.equal(res.location, "/settings/applications?notice=revoked");
  assert.deepEqual([await verify(s, tokens[0]), await verify(s, tokens[1])], [401, 401]);
  // The fixture's own token (the CLI app) is another authorized app and stays.
  const left = (await b.fetch("/settings/applications")).text;
  assert.doesNotMatch(left, /Pinafore/);
  assert.match(left, /<td class="name">Roost CLI<\/td>/);
  assert.equal((await b.fetch("/settings/sessions")).status, 200, "the browser session itself stays");
});
