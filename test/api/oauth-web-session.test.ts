import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { startTestServer, type TestServer } from "../helpers/server.ts";
import { sha256Hex } from "../../src/lib/crypto.ts";
import { revokeAccessToken } from "../../src/services/oauth-token.ts";
import { findApplicationById } from "../../src/storage/applications.ts";
import { findTokenById, revokeToken } from "../../src/storage/tokens.ts";
import { countWebSessions, findWebSessionByHash } from "../../src/storage/web-sessions.ts";
import { Browser, PASSWORD, authorizePath, formWithButton, registerApp, type RegisteredApp } from "./oauth-helpers.ts";

function sessionOf(s: TestServer, b: Browser) {
  const raw = b.cookies.get("roost_session");
  assert.ok(raw, "no session cookie");
  const session = findWebSessionByHash(s.app.db, sha256Hex(decodeURIComponent(raw)));
  assert.ok(session, "no session row");
  return session;
}

describe("browser sessions", () => {
  let s: TestServer;
  let a: RegisteredApp;
  let userId: string;
  before(async () => {
    s = await startTestServer();
    userId = (await s.user("alice")).user.id;
    a = await registerApp(s);
  });
  after(() => s.close());

  it("binds each session to a new Web-app token with read write follow", async () => {
    const b = new Browser(s.url);
    await b.signIn("alice@example.test");
    const session = sessionOf(s, b);
    const token = findTokenById(s.app.db, session.tokenId)!;
    assert.deepEqual(token.scopes, ["read", "write", "follow"]);
    assert.equal(token.userId, userId);
    const web = findApplicationById(s.app.db, token.applicationId!)!;
    assert.equal(web.name, "Web");
    assert.equal(web.superapp, true);
  });

  it("sign-out revokes the session's token and logs the browser out", async () => {
    const b = new Browser(s.url);
    await b.signIn("alice");
    const session = sessionOf(s, b);
    const consent = await b.fetch(authorizePath(a));
    const signOut = formWithButton(consent.text, "Not you? Use a different account");
    const out = await b.fetch("/auth/sign_out", { form: signOut.fields });
    assert.equal(out.status, 302);
    assert.equal(out.location, `/auth/sign_in?return_to=${encodeURIComponent(signOut.fields.return_to)}`);
    assert.equal(b.cookies.has("roost_session"), false);
    assert.notEqual(findTokenById(s.app.db, session.tokenId)!.revokedAt, null);
    // Replaying the old cookie does not help.
    b.cookies.set("roost_session", "stale");
    const again = await b.fetch(authorizePath(a));
    assert.equal(again.status, 302);
    assert.match(again.location!, /^\/auth\/sign_in\?return_to=/);
  });

  it("a revoked session token ends the session", async () => {
    for (const revoke of [
      (tokenId: string) => revokeAccessToken(s.app, tokenId),
      // Any other path that revokes tokens without knowing about sessions.
      (tokenId: string) => revokeToken(s.app.db, tokenId, Date.now()),
    ]) {
      const b = new Browser(s.url);
      await b.signIn("alice");
      const session = sessionOf(s, b);
      assert.equal((await b.fetch(authorizePath(a))).status, 200);
      revoke(session.tokenId);
      const r = await b.fetch(authorizePath(a));
      assert.equal(r.status, 302);
      assert.match(r.location!, /^\/auth\/sign_in\?return_to=/);
      assert.equal(findWebSessionByHash(s.app.db, sha256Hex(decodeURIComponent(b.cookies.get("roost_session")!))), undefined);
    }
  });

  it("signing in again replaces the browser's previous session", async () => {
    const b = new Browser(s.url);
    await b.signIn("alice");
    const first = sessionOf(s, b);
    // A signed-in browser sees "signed in as" instead of the form; post the credentials directly.
    const token = formWithButton((await b.fetch("/auth/sign_in")).text, "Sign out").fields.authenticity_token;
    const r = await b.fetch("/auth/sign_in", { form: { authenticity_token: token, login: "alice", password: PASSWORD } });
    assert.equal(r.status, 302);
    const second = sessionOf(s, b);
    assert.notEqual(first.id, second.id);
    assert.notEqual(findTokenById(s.app.db, first.tokenId)!.revokedAt, null);
    assert.equal(findTokenById(s.app.db, second.tokenId)!.revokedAt, null);
  });
});

describe("session limits and cookie flags", () => {
  let s: TestServer;
  let userId: string;
  before(async () => {
    s = await startTestServer({ config: { maxSessions: 2, protocol: "https" } });
    userId = (await s.user("alice")).user.id;
  });
  after(() => s.close());

  it("ends the oldest sessions beyond maxSessions and marks cookies Secure on https", async () => {
    const browsers = [new Browser(s.url), new Browser(s.url), new Browser(s.url)];
    const sessions = [];
    for (const b of browsers) {
      const r = await b.signIn("alice");
      assert.equal(r.status, 302);
      assert.match(r.headers.getSetCookie().find((c) => c.startsWith("roost_session="))!, /; HttpOnly; SameSite=Lax; Secure$/);
      sessions.push(sessionOf(s, b));
    }
    assert.equal(countWebSessions(s.app.db, userId), 2);
    assert.notEqual(findTokenById(s.app.db, sessions[0].tokenId)!.revokedAt, null);
    assert.equal(findTokenById(s.app.db, sessions[1].tokenId)!.revokedAt, null);
    assert.equal(findTokenById(s.app.db, sessions[2].tokenId)!.revokedAt, null);
    const first = await browsers[0].fetch("/auth/sign_in");
    assert.match(first.text, /<form method="post" action="\/auth\/sign_in">/);
    const third = await browsers[2].fetch("/auth/sign_in");
    assert.match(third.text, /You are signed in as/);
  });
});
