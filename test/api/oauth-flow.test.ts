import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import * as oauth from "oauth4webapi";
import { startTestServer, type TestServer, type TestUser } from "../helpers/server.ts";
import { ALL_SCOPES } from "../../src/lib/scopes.ts";
import { Browser, PASSWORD, approve, authorizePath, codeFrom, exchangeCode, formWithButton, parseForms, registerApp } from "./oauth-helpers.ts";

describe("authorization code flow in the browser", () => {
  let s: TestServer;
  let alice: TestUser;
  before(async () => {
    s = await startTestServer();
    alice = await s.user("alice", { displayName: "Alice" });
    await s.user("bob");
  });
  after(() => s.close());

  it("runs the full PKCE flow with oauth4webapi, through sign-in and consent", async () => {
    const issuer = new URL(s.url + "/");
    const as = await oauth.processDiscoveryResponse(
      issuer,
      await oauth.discoveryRequest(issuer, { algorithm: "oauth2", [oauth.allowInsecureRequests]: true }),
    );
    assert.deepEqual(as.code_challenge_methods_supported, ["S256"]);
    assert.deepEqual(as.grant_types_supported, ["authorization_code", "client_credentials"]);
    assert.deepEqual(as.scopes_supported, ALL_SCOPES);
    assert.equal(as.app_registration_endpoint, `${s.url}/api/v1/apps`);

    const redirectUri = "https://client.example/callback";
    const reg = await s.api(null, "POST", new URL(as.app_registration_endpoint as string).pathname, {
      client_name: "oauth4webapi <client>",
      redirect_uris: [redirectUri],
      scopes: "read write profile",
    });
    const client: oauth.Client = { client_id: reg.client_id };
    const verifier = oauth.generateRandomCodeVerifier();
    const challenge = await oauth.calculatePKCECodeChallenge(verifier);
    const state = oauth.generateRandomState();
    const authUrl = new URL(as.authorization_endpoint!);
    authUrl.search = new URLSearchParams({
      response_type: "code",
      client_id: reg.client_id,
      redirect_uri: redirectUri,
      scope: "read write profile",
      state,
      code_challenge: challenge,
      code_challenge_method: "S256",
    }).toString();

    const b = new Browser(s.url);
    const first = await b.fetch(authUrl.href);
    assert.equal(first.status, 302);
    const signInUrl = new URL(first.location!, s.url);
    assert.equal(signInUrl.pathname, "/auth/sign_in");
    assert.equal(signInUrl.searchParams.get("return_to"), authUrl.pathname + authUrl.search);

    const signInPage = await b.fetch(first.location!);
    assert.equal(signInPage.status, 200);
    assert.match(signInPage.headers.get("content-type")!, /^text\/html/);
    assert.equal(signInPage.headers.get("x-frame-options"), "DENY");
    assert.equal(signInPage.headers.get("cache-control"), "no-store");
    const csp = signInPage.headers.get("content-security-policy")!;
    assert.match(csp, /frame-ancestors 'none'/);
    assert.doesNotMatch(csp, /form-action/);
    const form = formWithButton(signInPage.text, "Sign in");
    assert.equal(form.action, "/auth/sign_in");
    assert.match(form.fields.authenticity_token, /^[0-9a-f]{64}$/);
    assert.ok(b.cookies.has("roost_csrf"));

    const signedIn = await b.fetch("/auth/sign_in", { form: { ...form.fields, login: "alice@example.test", password: PASSWORD } });
    assert.equal(signedIn.status, 302, signedIn.text);
    assert.equal(signedIn.location, authUrl.pathname + authUrl.search);
    const setCookie = signedIn.headers.getSetCookie().find((c) => c.startsWith("roost_session="))!;
    assert.match(setCookie, /HttpOnly/);
    assert.match(setCookie, /SameSite=Lax/);
    assert.doesNotMatch(setCookie, /Secure/); // the test server speaks http

    const consent = await b.fetch(signedIn.location!);
    assert.equal(consent.status, 200);
    assert.doesNotMatch(consent.headers.get("content-security-policy")!, /form-action/);
    assert.match(consent.text, /oauth4webapi &#60;client&#62;/); // escaped app name
    assert.match(consent.text, /@alice@127\.0\.0\.1/);
    assert.match(consent.text, /Full access to your account/);
    assert.match(consent.text, /Read and write access/);
    assert.match(consent.text, /Your profile information/);
    assert.ok(parseForms(consent.text).some((f) => f.action === "/auth/sign_out" && f.fields.return_to));
    const approveForm = formWithButton(consent.text, "Authorize");
    assert.equal(approveForm.fields.code_challenge, challenge);
    assert.equal(approveForm.fields.state, state);
    const approved = await b.fetch(approveForm.action, { form: approveForm.fields });
    assert.equal(approved.status, 302);
    assert.ok(approved.location!.startsWith(`${redirectUri}?code=`));

    const params = oauth.validateAuthResponse(as, client, new URL(approved.location!), state);
    const response = await oauth.authorizationCodeGrantRequest(as, client, oauth.ClientSecretBasic(reg.client_secret), params, redirectUri, verifier, {
      [oauth.allowInsecureRequests]: true,
    });
    assert.equal(response.headers.get("cache-control"), "no-store");
    assert.equal(response.headers.get("pragma"), "no-cache");
    const result = await oauth.processAuthorizationCodeResponse(as, client, response);
    assert.equal(result.token_type, "bearer");
    assert.equal(result.scope, "read write profile");
    assert.equal(result.refresh_token, undefined);
    assert.equal(result.expires_in, undefined);
    assert.equal(typeof result.created_at, "number");
    assert.ok(Math.abs((result.created_at as number) - Date.now() / 1000) < 60);

    const app = await s.api(result.access_token, "GET", "/api/v1/apps/verify_credentials");
    assert.equal(app.name, "oauth4webapi <client>");
    const me = await s.req(result.access_token, "GET", "/api/v1/accounts/verify_credentials");
    if (me.status !== 404) assert.equal(me.body.id, alice.id); // the accounts routes may not exist yet

    const info = await oauth.processUserInfoResponse(as, client, `${s.url}/users/alice`,
      await oauth.userInfoRequest(as, client, result.access_token, { [oauth.allowInsecureRequests]: true }));
    assert.equal(info.preferred_username, "alice");
    assert.equal(info.name, "Alice");

    // Same app, same scopes: consent is skipped.
    const again = await b.fetch(authUrl.href);
    assert.equal(again.status, 302);
    assert.ok(again.location!.startsWith(`${redirectUri}?code=`));
    assert.equal(new URL(again.location!).searchParams.get("state"), state);
    // ...unless force_login is given.
    const forced = await b.fetch(`${authUrl.href}&force_login=true`);
    assert.equal(forced.status, 200);
    const authorizeForm = formWithButton(forced.text, "Authorize");
    // The forms carry force_login on, so another account signing in sees consent too.
    assert.equal(authorizeForm.fields.force_login, "true");
    // Other scopes need consent again.
    const fewer = await b.fetch(authorizePath({ ...reg, redirect_uris: [redirectUri] }, { scope: "read" }));
    assert.equal(fewer.status, 200);
  });

  it("shows the code on a page for out-of-band clients and keeps the existing query of redirect URIs", async () => {
    const oob = await registerApp(s, { redirect_uris: ["urn:ietf:wg:oauth:2.0:oob"], scopes: "read" });
    const b = new Browser(s.url);
    assert.equal((await b.signIn("bob")).status, 302);
    const loc = await approve(b, authorizePath(oob));
    assert.match(loc, /^\/oauth\/authorize\/native\?code=[A-Za-z0-9_-]{43}$/);
    const page = await b.fetch(loc);
    assert.equal(page.status, 200);
    assert.match(page.text, /Copy this authorization code and paste it to the application\./);
    const code = new URL(loc, s.url).searchParams.get("code")!;
    assert.match(page.text, new RegExp(`<input id="code" class="code" type="text" readonly value="${code}">`));
    const tok = await exchangeCode(s, oob, code);
    assert.equal(tok.status, 200, tok.text);
    assert.equal(tok.body.scope, "read");

    const withQuery = await registerApp(s, { redirect_uris: "https://q.example/cb?tenant=1" });
    const loc2 = await approve(b, authorizePath(withQuery, { state: "s p&ace" }));
    const u = new URL(loc2);
    assert.equal(u.searchParams.get("tenant"), "1");
    assert.equal(u.searchParams.get("state"), "s p&ace");
    assert.ok(u.searchParams.get("code"));
  });

  it("supports response_mode fragment and form_post, and loopback redirects on any port (RFC 8252)", async () => {
    const a = await registerApp(s, { redirect_uris: ["https://client.example/cb", "http://127.0.0.1/callback"] });
    const b = new Browser(s.url);
    await b.signIn("alice");
    const frag = await approve(b, authorizePath(a, { response_mode: "fragment", state: "st" }));
    const fragParams = new URLSearchParams(new URL(frag).hash.slice(1));
    assert.ok(frag.startsWith("https://client.example/cb#code="));
    assert.equal(fragParams.get("state"), "st");

    const consent = await b.fetch(authorizePath(a, { response_mode: "form_post", state: "st", force_login: "1" }));
    const form = formWithButton(consent.text, "Authorize");
    const page = await b.fetch(form.action, { form: form.fields });
    assert.equal(page.status, 200);
    const post = formWithButton(page.text, "Continue");
    assert.equal(post.action, "https://client.example/cb");
    assert.equal(post.fields.state, "st");
    assert.match(post.fields.code, /^[A-Za-z0-9_-]{43}$/);

    const loopback = "http://127.0.0.1:54321/callback";
    const loc = await approve(b, authorizePath({ ...a, redirect_uris: [loopback] }, { force_login: "true" }));
    assert.ok(loc.startsWith(`${loopback}?code=`));
    const tok = await exchangeCode(s, { ...a, redirect_uris: [loopback] }, codeFrom(loc));
    assert.equal(tok.status, 200, tok.text);
    const otherHost = await b.fetch(authorizePath({ ...a, redirect_uris: ["http://127.0.0.2:54321/callback"] }));
    assert.equal(otherHost.status, 400);
  });

  it("Deny redirects with access_denied (and answers JSON for out-of-band clients)", async () => {
    const a = await registerApp(s);
    const b = new Browser(s.url);
    await b.signIn("alice");
    const consent = await b.fetch(authorizePath(a, { state: "xyz" }));
    const deny = formWithButton(consent.text, "Deny");
    const res = await b.fetch(deny.action, { form: deny.fields });
    assert.equal(res.status, 302);
    const u = new URL(res.location!);
    assert.equal(u.origin + u.pathname, "https://client.example/cb");
    assert.equal(u.searchParams.get("error"), "access_denied");
    assert.equal(u.searchParams.get("error_description"), "The resource owner or authorization server denied the request.");
    assert.equal(u.searchParams.get("state"), "xyz");
    assert.equal(u.searchParams.get("code"), null);
    // DELETE, as Doorkeeper's own Deny form sends it.
    const approveForm = formWithButton(consent.text, "Authorize");
    const del = await b.fetch("/oauth/authorize", { method: "DELETE", form: approveForm.fields });
    assert.equal(del.status, 302);
    assert.equal(new URL(del.location!).searchParams.get("error"), "access_denied");

    const oob = await registerApp(s, { redirect_uris: "urn:ietf:wg:oauth:2.0:oob" });
    const c2 = await b.fetch(authorizePath(oob));
    const d2 = formWithButton(c2.text, "Deny");
    const r2 = await b.fetch(d2.action, { form: d2.fields });
    assert.equal(r2.status, 400);
    assert.deepEqual(JSON.parse(r2.text), {
      error: "access_denied",
      error_description: "The resource owner or authorization server denied the request.",
    });
  });

  it("shows HTML error pages for bad authorization requests, never redirecting", async () => {
    const a = await registerApp(s, { scopes: "read" });
    const b = new Browser(s.url);
    const cases: [string, number, string][] = [
      [authorizePath({ ...a, client_id: "unknown" }), 401, "Client authentication failed due to unknown client"],
      [authorizePath(a).replace(/client_id=[^&]*&?/, ""), 400, "Missing required parameter: client_id."],
      [authorizePath({ ...a, redirect_uris: ["https://evil.example/cb"] }), 400, "The requested redirect uri is malformed or doesn&#39;t match client redirect URI."],
      [authorizePath(a, { response_type: "token" }), 400, "The authorization server does not support this response type."],
      [authorizePath(a, { scope: "read write" }), 400, "The requested scope is invalid, unknown, or malformed."],
      [authorizePath(a, { scope: "read bogus" }), 400, "The requested scope is invalid, unknown, or malformed."],
      [authorizePath(a, { code_challenge: "x".repeat(43), code_challenge_method: "plain" }), 400, "The code_challenge_method must be one of S256."],
      [authorizePath(a, { code_challenge: "x".repeat(43) }), 400, "The code_challenge_method must be one of S256."],
    ];
    for (const [path, status, text] of cases) {
      const r = await b.fetch(path);
      assert.equal(r.status, status, path);
      assert.equal(r.location, null);
      assert.match(r.headers.get("content-type")!, /^text\/html/);
      assert.ok(r.text.includes(text), `${path}: ${r.text}`);
    }
    // A narrower scope than registered is fine (read:statuses under read).
    const narrow = await b.fetch(authorizePath(a, { scope: "read:statuses" }));
    assert.equal(narrow.status, 302);
    assert.match(narrow.location!, /^\/auth\/sign_in\?return_to=/);
  });

  it("refuses forms without a valid CSRF token", async () => {
    const a = await registerApp(s);
    const b = new Browser(s.url);
    const page = await b.fetch("/auth/sign_in");
    const form = formWithButton(page.text, "Sign in");
    const missing = await b.fetch("/auth/sign_in", { form: { login: "alice", password: PASSWORD } });
    assert.equal(missing.status, 422);
    assert.match(missing.text, /Invalid authenticity token/);
    const wrong = await b.fetch("/auth/sign_in", { form: { ...form.fields, authenticity_token: "0".repeat(64), login: "alice", password: PASSWORD } });
    assert.equal(wrong.status, 422);
    // A token from another browser does not match this browser's cookie.
    const other = new Browser(s.url);
    const otherForm = formWithButton((await other.fetch("/auth/sign_in")).text, "Sign in");
    const foreign = await b.fetch("/auth/sign_in", { form: { ...otherForm.fields, login: "alice", password: PASSWORD } });
    assert.equal(foreign.status, 422);
    assert.equal(b.cookies.has("roost_session"), false);

    assert.equal((await b.signIn("alice")).status, 302);
    const consent = await b.fetch(authorizePath(a));
    const approveForm = formWithButton(consent.text, "Authorize");
    const { authenticity_token: _drop, ...noToken } = approveForm.fields;
    const r1 = await b.fetch("/oauth/authorize", { form: noToken });
    assert.equal(r1.status, 422);
    assert.match(r1.text, /Invalid authenticity token/);
    const r2 = await other.fetch("/oauth/authorize", { form: approveForm.fields });
    assert.equal(r2.status, 422);
    const signOut = formWithButton(consent.text, "Not you? Use a different account");
    const r3 = await b.fetch("/auth/sign_out", { form: { return_to: signOut.fields.return_to } });
    assert.equal(r3.status, 422);
    // Still signed in: consent is still shown.
    assert.equal((await b.fetch(authorizePath(a))).status, 200);
  });

  it("wrong credentials and unusable accounts are refused on the sign-in page", async () => {
    await s.user("carol", { confirmed: false });
    await s.user("dave", { approved: false });
    const b = new Browser(s.url);
    const cases: [string, string, string][] = [
      ["alice", "wrong password", "Invalid e-mail address or password."],
      ["nobody", PASSWORD, "Invalid e-mail address or password."],
      ["carol", PASSWORD, "You have to confirm your e-mail address before continuing."],
      ["dave", PASSWORD, "Your account is still pending approval by the staff of this server."],
    ];
    for (const [login, password, message] of cases) {
      const r = await b.signIn(login, password);
      assert.equal(r.status, 422, login);
      assert.ok(r.text.includes(message), r.text);
      assert.equal(b.cookies.has("roost_session"), false);
    }
    // Username login is case-insensitive; the return target must be a local path.
    const ok = await b.signIn("ALICE", PASSWORD, "/auth/sign_in?return_to=%2F%2Fevil.example%2Fx");
    assert.equal(ok.status, 302);
    assert.equal(ok.location, "/auth/sign_in");
    const home = await b.fetch("/auth/sign_in");
    assert.match(home.text, /You are signed in as <strong>@alice@/);
  });
});
