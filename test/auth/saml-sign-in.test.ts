// SAML 2.0 sign-in against an IdP built in the test: it reads the AuthnRequest roost sends and
// answers with a Response whose Assertion it signs with a throwaway key (xml-crypto). A good
// response signs in (account made on first sign-in); a bad signature, a tampered assertion, a
// replayed response and a replayed assertion id are each refused.
import { test } from "node:test";
import assert from "node:assert/strict";
import { generateKeyPairSync, randomUUID } from "node:crypto";
import { inflateRawSync } from "node:zlib";
import { SignedXml } from "xml-crypto";
import { startTestServer } from "../helpers/server.ts";
import { Browser, formWithButton } from "../api/oauth-helpers.ts";

const IDP = "https://idp.example/saml";
const pair = () => generateKeyPairSync("rsa", { modulusLength: 2048, publicKeyEncoding: { type: "spki", format: "pem" }, privateKeyEncoding: { type: "pkcs8", format: "pem" } });
const idpKeys = pair();
const otherKeys = pair();

function respond(o: { requestId: string; callback: string; audience: string; nameId: string; assertionId?: string; key?: string }): string {
  const now = new Date();
  const iso = (ms: number) => new Date(now.getTime() + ms).toISOString();
  const assertionId = o.assertionId ?? `_a${randomUUID()}`;
  const xml = `<samlp:Response xmlns:samlp="urn:oasis:names:tc:SAML:2.0:protocol" xmlns:saml="urn:oasis:names:tc:SAML:2.0:assertion" ID="_r${randomUUID()}" Version="2.0" IssueInstant="${iso(0)}" Destination="${o.callback}" InResponseTo="${o.requestId}"><saml:Issuer>${IDP}</saml:Issuer><samlp:Status><samlp:StatusCode Value="urn:oasis:names:tc:SAML:2.0:status:Success"/></samlp:Status><saml:Assertion ID="${assertionId}" Version="2.0" IssueInstant="${iso(0)}"><saml:Issuer>${IDP}</saml:Issuer><saml:Subject><saml:NameID Format="urn:oasis:names:tc:SAML:1.1:nameid-format:unspecified">${o.nameId}</saml:NameID><saml:SubjectConfirmation Method="urn:oasis:names:tc:SAML:2.0:cm:bearer"><saml:SubjectConfirmationData InResponseTo="${o.requestId}" NotOnOrAfter="${iso(300_000)}" Recipient="${o.callback}"/></saml:SubjectConfirmation></saml:Subject><saml:Conditions NotBefore="${iso(-60_000)}" NotOnOrAfter="${iso(300_000)}"><saml:AudienceRestriction><saml:Audience>${o.audience}</saml:Audience></saml:AudienceRestriction></saml:Conditions><saml:AuthnStatement AuthnInstant="${iso(0)}" SessionIndex="_s1"><saml:AuthnContext><saml:AuthnContextClassRef>urn:oasis:names:tc:SAML:2.0:ac:classes:Password</saml:AuthnContextClassRef></saml:AuthnContext></saml:AuthnStatement><saml:AttributeStatement><saml:Attribute Name="urn:oid:0.9.2342.19200300.100.1.3"><saml:AttributeValue>${o.nameId}@idp.example</saml:AttributeValue></saml:Attribute><saml:Attribute Name="urn:oid:2.16.840.1.113730.3.1.241"><saml:AttributeValue>Gina G</saml:AttributeValue></saml:Attribute></saml:AttributeStatement></saml:Assertion></samlp:Response>`;
  const sig = new SignedXml({
    privateKey: o.key ?? idpKeys.privateKey,
    signatureAlgorithm: "http://www.w3.org/2001/04/xmldsig-more#rsa-sha256",
    canonicalizationAlgorithm: "http://www.w3.org/2001/10/xml-exc-c14n#",
  });
  sig.addReference({
    xpath: "//*[local-name(.)='Assertion']",
    digestAlgorithm: "http://www.w3.org/2001/04/xmlenc#sha256",
    transforms: ["http://www.w3.org/2000/09/xmldsig#enveloped-signature", "http://www.w3.org/2001/10/xml-exc-c14n#"],
  });
  sig.computeSignature(xml, { location: { reference: "//*[local-name(.)='Assertion']/*[local-name(.)='Issuer']", action: "after" } });
  return Buffer.from(sig.getSignedXml()).toString("base64");
}

test("SAML sign-in: signed assertion signs in; bad signature, tampering and replays are refused", async (t) => {
  const s = await startTestServer({ config: { samlEntryPoint: `${IDP}/sso`, samlIdpCert: idpKeys.publicKey, samlDisplayName: "University SAML", samlAssumeEmailVerified: true } });
  t.after(() => s.close());
  const callback = `${s.url}/auth/auth/saml/callback`;
  const audience = `${s.url}/auth/auth/saml/metadata`;

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
