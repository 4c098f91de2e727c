import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { startTestServer, type TestServer } from "../helpers/server.ts";
import { sha256Base64Url, sha256Hex } from "../../src/lib/crypto.ts";
import { ALL_SCOPES } from "../../src/lib/scopes.ts";
import { Browser, approve, authorizePath, codeFrom, exchangeCode, registerApp, type RegisteredApp } from "./oauth-helpers.ts";

const INVALID_GRANT = "The provided authorization grant is invalid, expired, revoked, does not match the redirection URI used in the authorization request, or was issued to another client.";
const INVALID_CLIENT = "Client authentication failed due to unknown client, no client authentication included, or unsupported authentication method.";

describe("POST /oauth/token, /oauth/revoke, /oauth/userinfo and the metadata document", () => {
  let s: TestServer;
  let a: RegisteredApp;
  let b: Browser;
  const verifier = "v".repeat(20) + "-._~" + "0123456789abcdefghijklmnopqrstuvwxyz";
  before(async () => {
    s = await startTestServer();
    await s.user("alice", { displayName: "Alice :blobcat:" });
    a = await registerApp(s, { scopes: "read write profile" });
    b = new Browser(s.url);
    await b.signIn("alice");
  });
  after(() => s.close());

  const newCode = async (extra: Record<string, string> = {}) => codeFrom(await approve(b, authorizePath(a, { force_login: "true", ...extra })));
  const form = (o: Record<string, string>) => new URLSearchParams(o);

  it("exchanges a PKCE code once; wrong or missing verifiers and replays fail", async () => {
    const code = await newCode({ code_challenge: sha256Base64Url(verifier), code_challenge_method: "S256", scope: "read profile" });
    const noVerifier = await exchangeCode(s, a, code);
    assert.equal(noVerifier.status, 400);
    assert.deepEqual(noVerifier.body, { error: "invalid_request", error_description: "Missing required parameter: code_verifier." });
    const wrong = await exchangeCode(s, a, code, { code_verifier: verifier + "x" });
    assert.equal(wrong.status, 400);
    assert.deepEqual(wrong.body, { error: "invalid_grant", error_description: INVALID_GRANT });
    assert.equal(
      wrong.headers.get("www-authenticate"),
      `Bearer realm="Doorkeeper", error="invalid_grant", error_description="${INVALID_GRANT}"`,
    );
    const ok = await exchangeCode(s, a, code, { code_verifier: verifier });
    assert.equal(ok.status, 200, ok.text);
    assert.deepEqual(Object.keys(ok.body).sort(), ["access_token", "created_at", "scope", "token_type"]);
    assert.equal(ok.body.token_type, "Bearer");
    assert.equal(ok.body.scope, "read profile");
    assert.ok(Number.isInteger(ok.body.created_at));
    assert.equal(ok.headers.get("cache-control"), "no-store");
    assert.equal(ok.headers.get("pragma"), "no-cache");
    // Only the token's hash is stored.
    const row = s.app.db.prepare("SELECT token_hash FROM oauth_tokens WHERE token_hash = ?").get(sha256Hex(ok.body.access_token));
    assert.ok(row);
    const replay = await exchangeCode(s, a, code, { code_verifier: verifier });
    assert.equal(replay.status, 400);
    assert.equal(replay.body.error, "invalid_grant");
  });

  it("binds the code to the redirect URI and the client, and expires it after 10 minutes", async () => {
    const code = await newCode();
    const mismatch = await exchangeCode(s, a, code, { redirect_uri: "https://client.example/other" });
    assert.equal(mismatch.status, 400);
    assert.equal(mismatch.body.error, "invalid_grant");
    const other = await registerApp(s);
    const otherClient = await exchangeCode(s, other, code);
    assert.equal(otherClient.status, 400);
    assert.equal(otherClient.body.error, "invalid_grant");
    const missingUri = await s.req(null, "POST", "/oauth/token", form({ grant_type: "authorization_code", code, client_id: a.client_id, client_secret: a.client_secret }));
    assert.equal(missingUri.status, 400);
    assert.deepEqual(missingUri.body, { error: "invalid_request", error_description: "Missing required parameter: redirect_uri." });
    // Still unused after those failures.
    assert.equal((await exchangeCode(s, a, code)).status, 200);

    const late = await newCode();
    const realNow = s.app.now;
    s.app.now = () => realNow() + 10 * 60_000 + 1000;
    try {
      const expired = await exchangeCode(s, a, late);
      assert.equal(expired.status, 400);
      assert.equal(expired.body.error, "invalid_grant");
    } finally {
      s.app.now = realNow;
    }
  });

  it("authenticates clients by HTTP Basic or body, refusing bad credentials with 401 invalid_client", async () => {
    const code = await newCode();
    const basic = "Basic " + Buffer.from(`${encodeURIComponent(a.client_id)}:${encodeURIComponent(a.client_secret)}`).toString("base64");
    const viaBasic = await s.req(null, "POST", "/oauth/token", form({ grant_type: "authorization_code", code, redirect_uri: a.redirect_uris[0] }), { authorization: basic });
    assert.equal(viaBasic.status, 200, viaBasic.text);
    const bad: Record<string, string>[] = [{ client_id: a.client_id, client_secret: "wrong" }, { client_id: "unknown", client_secret: a.client_secret }, {}];
    for (const creds of bad) {
      const r = await s.req(null, "POST", "/oauth/token", form({ grant_type: "client_credentials", ...creds }));
      assert.equal(r.status, 401);
      assert.deepEqual(r.body, { error: "invalid_client", error_description: INVALID_CLIENT });
      assert.match(r.headers.get("www-authenticate")!, /^Bearer realm="Doorkeeper", error="invalid_client"/);
    }
    // JSON bodies work too (masto.js sends JSON).
    const json = await s.req(null, "POST", "/oauth/token", { grant_type: "client_credentials", client_id: a.client_id, client_secret: a.client_secret });
    assert.equal(json.status, 200);
  });

  it("issues app tokens with client_credentials within the app's scopes", async () => {
    const def = await s.req(null, "POST", "/oauth/token", form({ grant_type: "client_credentials", client_id: a.client_id, client_secret: a.client_secret }));
    assert.equal(def.status, 200);
    assert.equal(def.body.scope, "read");
    const narrower = await s.req(null, "POST", "/oauth/token", form({ grant_type: "client_credentials", client_id: a.client_id, client_secret: a.client_secret, scope: "read:statuses write" }));
    assert.equal(narrower.body.scope, "read:statuses write");
    for (const scope of ["push", "admin:read", "bogus"]) {
      const r = await s.req(null, "POST", "/oauth/token", form({ grant_type: "client_credentials", client_id: a.client_id, client_secret: a.client_secret, scope }));
      assert.equal(r.status, 400, scope);
      assert.deepEqual(r.body, { error: "invalid_scope", error_description: "The requested scope is invalid, unknown, or malformed." });
    }
    // An app token has no user: user endpoints refuse it.
    const info = await s.req(def.body.access_token, "GET", "/oauth/userinfo");
    assert.equal(info.status, 403);
    const profileApp = await s.req(null, "POST", "/oauth/token", form({ grant_type: "client_credentials", client_id: a.client_id, client_secret: a.client_secret, scope: "profile" }));
    const info2 = await s.req(profileApp.body.access_token, "GET", "/oauth/userinfo");
    assert.equal(info2.status, 422);
    assert.deepEqual(info2.body, { error: "This method requires an authenticated user" });
  });

  it("refuses the password, refresh_token and unknown grants", async () => {
    for (const grant_type of ["password", "refresh_token", "implicit", "urn:ietf:params:oauth:grant-type:device_code"]) {
      const r = await s.req(null, "POST", "/oauth/token", form({ grant_type, client_id: a.client_id, client_secret: a.client_secret, username: "alice", password: "x", refresh_token: "y" }));
      assert.equal(r.status, 400, grant_type);
      assert.deepEqual(r.body, { error: "unsupported_grant_type", error_description: "The authorization grant type is not supported by the authorization server." });
    }
    const none = await s.req(null, "POST", "/oauth/token", form({ client_id: a.client_id }));
    assert.equal(none.status, 400);
    assert.deepEqual(none.body, { error: "invalid_request", error_description: "Missing required parameter: grant_type." });
  });

  it("revokes the client's own tokens; other clients get 403, unknown tokens 200", async () => {
    const tok = (await exchangeCode(s, a, await newCode())).body.access_token as string;
    assert.equal((await s.req(tok, "GET", "/api/v1/apps/verify_credentials")).status, 200);
    const other = await registerApp(s);
    const foreign = await s.req(null, "POST", "/oauth/revoke", form({ token: tok, client_id: other.client_id, client_secret: other.client_secret }));
    assert.equal(foreign.status, 403);
    assert.deepEqual(foreign.body, { error: "unauthorized_client", error_description: "You are not authorized to revoke this token" });
    const noAuth = await s.req(null, "POST", "/oauth/revoke", form({ token: tok }));
    assert.equal(noAuth.status, 403);
    assert.equal((await s.req(tok, "GET", "/api/v1/apps/verify_credentials")).status, 200);

    const own = await s.req(null, "POST", "/oauth/revoke", form({ token: tok, client_id: a.client_id, client_secret: a.client_secret }));
    assert.equal(own.status, 200);
    assert.deepEqual(own.body, {});
    const after = await s.req(tok, "GET", "/api/v1/apps/verify_credentials");
    assert.equal(after.status, 401);
    assert.deepEqual(after.body, { error: "The access token was revoked" });
    // Idempotent, and unknown tokens are not an error.
    for (const token of [tok, "never-issued"]) {
      const r = await s.req(null, "POST", "/oauth/revoke", form({ token, client_id: a.client_id, client_secret: a.client_secret }));
      assert.equal(r.status, 200);
      assert.deepEqual(r.body, {});
    }
  });

  it("userinfo needs the profile scope itself; read or read:statuses are refused", async () => {
    const profile = (await exchangeCode(s, a, await newCode({ scope: "profile" }))).body.access_token;
    const info = await s.req(profile, "GET", "/oauth/userinfo");
    assert.equal(info.status, 200, info.text);
    assert.deepEqual(info.body, {
      iss: `${s.url}/`,
      sub: `${s.url}/users/alice`,
      name: "Alice :blobcat:",
      preferred_username: "alice",
      profile: `${s.url}/@alice`,
      picture: info.body.picture,
    });
    assert.match(info.body.picture, /^http:\/\/127\.0\.0\.1:\d+\//);
    assert.equal(info.headers.get("access-control-allow-origin"), "*");
    const post = await s.req(null, "POST", "/oauth/userinfo", form({ access_token: profile }));
    assert.equal(post.status, 200);
    assert.equal(post.body.preferred_username, "alice");

    const read = (await exchangeCode(s, a, await newCode({ scope: "read" }))).body.access_token;
    const narrow = (await exchangeCode(s, a, await newCode({ scope: "read:statuses" }))).body.access_token;
    for (const t of [read, narrow]) {
      const r = await s.req(t, "GET", "/oauth/userinfo");
      assert.equal(r.status, 403);
      assert.deepEqual(r.body, { error: "This action is outside the authorized scopes" });
    }
    const none = await s.req(null, "GET", "/oauth/userinfo");
    assert.equal(none.status, 401);
    assert.deepEqual(none.body, { error: "The access token is invalid" });
  });

  it("publishes the RFC 8414 metadata document", async () => {
    const r = await s.req(null, "GET", "/.well-known/oauth-authorization-server");
    assert.equal(r.status, 200);
    assert.match(r.headers.get("content-type")!, /^application\/json/);
    assert.equal(r.headers.get("access-control-allow-origin"), "*");
    assert.deepEqual(r.body, {
      issuer: `${s.url}/`,
      service_documentation: "https://docs.joinmastodon.org/",
      authorization_endpoint: `${s.url}/oauth/authorize`,
      token_endpoint: `${s.url}/oauth/token`,
      app_registration_endpoint: `${s.url}/api/v1/apps`,
      revocation_endpoint: `${s.url}/oauth/revoke`,
      userinfo_endpoint: `${s.url}/oauth/userinfo`,
      scopes_supported: [...ALL_SCOPES],
      response_types_supported: ["code"],
      response_modes_supported: ["query", "fragment", "form_post"],
      code_challenge_methods_supported: ["S256"],
      grant_types_supported: ["authorization_code", "client_credentials"],
      token_endpoint_auth_methods_supported: ["client_secret_basic", "client_secret_post"],
    });
  });
});
