// OpenID Connect sign-in against a real provider (oidc-provider) run inside the test: the code
// flow with PKCE and nonce through its login and consent pages, the account made on first
// sign-in and found again later, and a callback with the wrong state refused.
import { test } from "node:test";
import assert from "node:assert/strict";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { generateKeyPairSync } from "node:crypto";
import Provider from "oidc-provider";
import { startTestServer } from "../helpers/server.ts";
import { Browser, formWithButton } from "../api/oauth-helpers.ts";

const PEOPLE: Record<string, { email: string; name: string }> = { frank: { email: "frank@idp.example", name: "Frank" } };

async function startIdp(): Promise<{ url: string; configure: (redirectUri: string) => void; close: () => void }> {
  let handler: ((req: any, res: any) => void) | undefined;
  const server = createServer((req, res) => (handler ? handler(req, res) : res.writeHead(503).end()));
  await new Promise<void>((ok) => server.listen(0, "127.0.0.1", ok));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const key = generateKeyPairSync("rsa", { modulusLength: 2048 }).privateKey.export({ format: "jwk" });
  return {
    url,
    configure(redirectUri) {
      const provider = new Provider(url, {
        clients: [{ client_id: "roost", client_secret: "a-client-secret-for-tests", redirect_uris: [redirectUri], token_endpoint_auth_method: "client_secret_post" }],
        jwks: { keys: [{ ...key, kid: "test", use: "sig", alg: "RS256" }] as any },
        cookies: { keys: ["cookie-key-for-tests"] },
        claims: { openid: ["sub"], email: ["email", "email_verified"], profile: ["name"] },
        findAccount: async (_ctx: unknown, id: string) =>
          PEOPLE[id] && { accountId: id, claims: async () => ({ sub: id, email: PEOPLE[id].email, email_verified: true, name: PEOPLE[id].name }) },
      });
      handler = provider.callback();
    },
    close: () => server.close(),
  };
}

/** Walks the provider's login and consent pages as `login`; returns roost's callback URL. */
async function atProvider(idp: Browser, start: string, roost: string, login: string): Promise<string> {
  let url = start;
  for (let step = 0; step < 12; step++) {
    const res = await idp.fetch(url);
    if (res.location?.startsWith(roost)) return res.location;
    if (res.location) {
      url = new URL(res.location, url).href;
      continue;
    }
    assert.equal(res.status, 200, res.text);
    const uid = /\/interaction\/([^/"]+)/.exec(res.text)?.[1];
    assert.ok(uid, res.text);
    const prompt = /name="prompt" value="(login|consent)"/.exec(res.text)?.[1];
    const form: Record<string, string> = prompt === "login" ? { prompt, login, password: "any" } : { prompt: "consent" };
    const posted = await idp.fetch(`${new URL(url).origin}/interaction/${uid}`, { form });
    url = new URL(posted.location!, url).href;
  }
  assert.fail("the provider never sent the browser back");
}

test("OIDC sign-in: code flow with PKCE and nonce, account made then found; wrong state refused", async (t) => {
  const idp = await startIdp();
  t.after(() => idp.close());
  const s = await startTestServer({
    config: { oidcIssuer: idp.url, oidcClientId: "roost", oidcClientSecret: "a-client-secret-for-tests", oidcDisplayName: "Company SSO" },
  });
  t.after(() => s.close());
  idp.configure(`${s.url}/auth/auth/openid_connect/callback`);

  const returnTo = "/oauth/authorize?client_id=abc&response_type=code";
  for (const round of [1, 2]) {
    const b = new Browser(s.url);
    const page = await b.fetch(`/auth/sign_in?return_to=${encodeURIComponent(returnTo)}`);
    const start = await b.fetch("/auth/auth/openid_connect", { form: formWithButton(page.text, "Company SSO").fields });
    assert.equal(start.status, 302, start.text);
    const authz = new URL(start.location!);
    assert.equal(authz.searchParams.get("code_challenge_method"), "S256");
    assert.ok(authz.searchParams.get("nonce"));
    const callback = await atProvider(new Browser(idp.url), start.location!, s.url, "frank");
    const done = await b.fetch(callback);
    assert.equal(done.status, 302, `round ${round}: ${done.text}`);
    assert.equal(done.location, returnTo);
    assert.match((await b.fetch("/auth/sign_in")).text, /signed in as <strong>@frank@/);

    if (round === 2) {
      // The same callback again: its flow is over (cookie gone), so it is refused.
      const again = await b.fetch(callback);
      assert.equal(again.status, 422);
    }
  }
  assert.equal((await fetch(`${s.url}/api/v1/accounts/lookup?acct=frank_1`)).status, 404);
  const frank = await s.api(null, "GET", "/api/v1/accounts/lookup?acct=frank");
  assert.equal(frank.display_name, "Frank");

  // A callback whose state is not the one this browser's flow sent: refused, no session.
  const b = new Browser(s.url);
  const page = await b.fetch("/auth/sign_in");
  const start = await b.fetch("/auth/auth/openid_connect", { form: formWithButton(page.text, "Company SSO").fields });
  const callback = new URL(await atProvider(new Browser(idp.url), start.location!, s.url, "frank"));
  callback.searchParams.set("state", "not-the-state");
  const wrong = await b.fetch(callback.href);
  assert.equal(wrong.status, 422);
  assert.match(wrong.text, /started in another browser, or it took too long/);
  assert.equal(b.cookies.get("roost_session"), undefined);
});
