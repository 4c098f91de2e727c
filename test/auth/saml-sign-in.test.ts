// SAML 2.0 sign-in against an IdP built in the test: it reads the AuthnRequest roost sends and
// answers with a Response whose Assertion it signs with a throwaway key (xml-crypto). A good
// response signs in (account made on first sign-in); a bad signature, a tampered assertion, a
// replayed response and a replayed assertion id are each refused.
import { test } from "node:test";
import assert from "node:assert/strict";
import { inflateRawSync } from "node:zlib";
import { startTestServer } from "../helpers/server.ts";
import { Browser, formWithButton } from "../api/oauth-helpers.ts";
import { IDP, idpKeys, otherKeys, respond } from "./saml-idp.ts";

test("SAML sign-in: signed assertion signs in; bad signature, tampering and replays are refused", async (t) => {
  const s = await startTestServer({ config: { samlEntryPoint: `${IDP}/sso`, samlIdpCert: idpKeys.publicKey, samlDisplayName: "University SAML", samlAssumeEmailVerified: true } });
  t.after(() => s.close());
  const callback = `${s.url}/auth/auth/saml/callback`;
  const audience = `${s.url}/auth/auth/saml/metadata`;
  // The SP metadata names the audience checked; no certificate of ours is configured here.
  const metadata = await (await fetch(audience)).text();
  assert.match(metadata, new RegExp(`entityID="${audience}"`));
  assert.match(metadata, new RegExp(`<AssertionConsumerService [^>]*Location="${callback}"`));
  assert.ok(!metadata.includes("KeyDescriptor"));

  /** Presses the button; returns the AuthnRequest's id and the RelayState the IdP must send back. */
  async function start(b: Browser, signInPath = "/auth/sign_in") {
    const page = await b.fetch(signInPath);
    const res = await b.fetch("/auth/auth/saml", { form: formWithButton(page.text, "University SAML").fields });
    assert.equal(res.status, 302, res.text);
    const url = new URL(res.location!);
    assert.equal(url.origin + url.pathname, `${IDP}/sso`);
    const request = inflateRawSync(Buffer.from(url.searchParams.get("SAMLRequest")!, "base64")).toString();
    assert.match(request, new RegExp(`AssertionConsumerServiceURL="${callback}"`));
    return { requestId: /\bID="([^"]+)"/.exec(request)![1], relay: url.searchParams.get("RelayState")! };
  }
  const post = (b: Browser, SAMLResponse: string, RelayState: string) => b.fetch("/auth/auth/saml/callback", { form: { SAMLResponse, RelayState } });

  const returnTo = "/oauth/authorize?client_id=abc&response_type=code";
  const b = new Browser(s.url);
  const first = await start(b, `/auth/sign_in?return_to=${encodeURIComponent(returnTo)}`);
  const good = respond({ requestId: first.requestId, callback, audience, nameId: "gina", assertionId: "_assertion-1" });
  const ok = await post(b, good, first.relay);
  assert.equal(ok.status, 302, ok.text);
  assert.equal(ok.location, returnTo);
  assert.match((await b.fetch("/auth/sign_in")).text, /signed in as <strong>@gina@/);
  assert.equal((await s.api(null, "GET", "/api/v1/accounts/lookup?acct=gina")).display_name, "Gina G");

  // The same Response again: its request was answered already.
  const b2 = new Browser(s.url);
  const replay = await post(b2, good, first.relay);
  assert.equal(replay.status, 401);
  assert.match(replay.text, /could not be verified/);

  // A new request, answered with the old assertion id: refused as a replayed assertion.
  const second = await start(b2);
  const sameAssertion = await post(b2, respond({ requestId: second.requestId, callback, audience, nameId: "gina", assertionId: "_assertion-1" }), second.relay);
  assert.equal(sameAssertion.status, 401);
  assert.match(sameAssertion.text, /already been used/);

  // Signed by another key.
  const third = await start(b2);
  const forged = await post(b2, respond({ requestId: third.requestId, callback, audience, nameId: "gina", key: otherKeys.privateKey }), third.relay);
  assert.equal(forged.status, 401);
  assert.match(forged.text, /could not be verified/);

  // Signed by the IdP, then the NameID changed.
  const fourth = await start(b2);
  const signed = Buffer.from(respond({ requestId: fourth.requestId, callback, audience, nameId: "gina" }), "base64").toString();
  const tampered = Buffer.from(signed.replace(">gina</saml:NameID>", ">admin</saml:NameID>")).toString("base64");
  const bad = await post(b2, tampered, fourth.relay);
  assert.equal(bad.status, 401);
  assert.equal(b2.cookies.get("roost_session"), undefined);

  // An answer to a request roost never made.
  const unsolicited = await post(b2, respond({ requestId: "_never-asked", callback, audience, nameId: "gina" }), "x");
  assert.equal(unsolicited.status, 401);
  assert.equal(b2.cookies.get("roost_session"), undefined);
});
