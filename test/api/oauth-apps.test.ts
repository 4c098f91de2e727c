import { after, before, describe, it } from "node:test";
import assert from "node:assert/strict";
import { startTestServer, type TestServer } from "../helpers/server.ts";
import { sha256Hex } from "../../src/lib/crypto.ts";

describe("POST /api/v1/apps and GET /api/v1/apps/verify_credentials", () => {
  let s: TestServer;
  before(async () => {
    s = await startTestServer();
  });
  after(() => s.close());

  it("registers an app from JSON with an array of redirect URIs", async () => {
    const r = await s.req(null, "POST", "/api/v1/apps", {
      client_name: "Roost Test Client",
      redirect_uris: ["https://client.example/cb", "urn:ietf:wg:oauth:2.0:oob"],
      scopes: "read write push",
      website: "https://client.example",
    });
    assert.equal(r.status, 200);
    const a = r.body;
    assert.match(a.id, /^\d+$/);
    assert.equal(a.name, "Roost Test Client");
    assert.equal(a.website, "https://client.example");
    assert.deepEqual(a.scopes, ["read", "write", "push"]);
    assert.deepEqual(a.redirect_uris, ["https://client.example/cb", "urn:ietf:wg:oauth:2.0:oob"]);
    assert.equal(a.redirect_uri, "https://client.example/cb\nurn:ietf:wg:oauth:2.0:oob");
    assert.equal(a.vapid_key, s.app.config.vapidPublicKey);
    assert.ok(a.vapid_key.length > 40);
    assert.match(a.client_id, /^[A-Za-z0-9_-]{43}$/);
    assert.match(a.client_secret, /^[A-Za-z0-9_-]{43}$/);
    assert.equal(a.client_secret_expires_at, 0);
    // Only the secret's hash is stored.
    const row = s.app.db.prepare("SELECT * FROM oauth_applications WHERE client_id = ?").get(a.client_id) as Record<string, unknown>;
    assert.equal(row.client_secret_hash, sha256Hex(a.client_secret));
    assert.ok(!Object.values(row).includes(a.client_secret));
  });

  it("accepts form bodies with whitespace-separated URIs, custom schemes and loopback http; defaults scopes to read", async () => {
    const r = await s.req(null, "POST", "/api/v1/apps", new URLSearchParams({
      client_name: "Native",
      redirect_uris: "com.example.app://oauth\nmyapp:/cb   http://localhost:4000/callback",
    }));
    assert.equal(r.status, 200, r.text);
    assert.deepEqual(r.body.redirect_uris, ["com.example.app://oauth", "myapp:/cb", "http://localhost:4000/callback"]);
    assert.deepEqual(r.body.scopes, ["read"]);
    assert.equal(r.body.website, null);
  });

  it("refuses invalid input with Mastodon's 422 messages", async () => {
    const cases: [Record<string, unknown>, string][] = [
      [{ redirect_uris: "https://a.example/cb" }, "Validation failed: Name can't be blank"],
      [{ client_name: "x".repeat(61), redirect_uris: "https://a.example/cb" }, "Validation failed: Name is too long (maximum is 60 characters)"],
      [{ client_name: "A" }, "Validation failed: Redirect URI can't be blank"],
      [{ client_name: "A", redirect_uris: "/relative" }, "Validation failed: Redirect URI must be an absolute URI."],
      [{ client_name: "A", redirect_uris: "https://a.example/cb#frag" }, "Validation failed: Redirect URI cannot contain a fragment."],
      [{ client_name: "A", redirect_uris: "javascript:alert(1)" }, "Validation failed: Redirect URI is forbidden by the server."],
      [{ client_name: "A", redirect_uris: "https://a.example/cb", scopes: "read crypto" }, "Validation failed: Scopes doesn't match those configured on the server."],
      [{ client_name: "A", redirect_uris: "https://a.example/cb", website: "not a url" }, "Validation failed: Website is invalid"],
      [{ client_name: "A", redirect_uris: "https://a.example/" + "x".repeat(2000) }, "Validation failed: Redirect URI is too long (maximum is 2000 characters)"],
    ];
    for (const [body, error] of cases) {
      const r = await s.req(null, "POST", "/api/v1/apps", body);
      assert.equal(r.status, 422, JSON.stringify(body));
      assert.deepEqual(r.body, { error });
    }
  });

  it("verify_credentials works with an app token and a user token, without client credentials", async () => {
    const a = await s.api(null, "POST", "/api/v1/apps", { client_name: "Checker", redirect_uris: "https://c.example/cb", scopes: "read write" });
    const tok = await s.req(null, "POST", "/oauth/token", new URLSearchParams({
      grant_type: "client_credentials",
      client_id: a.client_id,
      client_secret: a.client_secret,
    }));
    assert.equal(tok.status, 200, tok.text);
    const v = await s.api(tok.body.access_token, "GET", "/api/v1/apps/verify_credentials");
    assert.deepEqual(v, {
      id: a.id,
      name: "Checker",
      website: null,
      scopes: ["read", "write"],
      redirect_uris: ["https://c.example/cb"],
      redirect_uri: "https://c.example/cb",
      vapid_key: s.app.config.vapidPublicKey,
    });
    // A user token of the CLI app answers with that app; no scope is needed.
    const bob = await s.user("bob", { scopes: ["push"] });
    const cli = await s.api(bob, "GET", "/api/v1/apps/verify_credentials");
    assert.equal(cli.name, "Roost CLI");
    assert.equal(cli.client_secret, undefined);
    const none = await s.req(null, "GET", "/api/v1/apps/verify_credentials");
    assert.equal(none.status, 401);
    assert.deepEqual(none.body, { error: "The access token is invalid" });
    const bad = await s.req("nope", "GET", "/api/v1/apps/verify_credentials");
    assert.equal(bad.status, 401);
  });
});
