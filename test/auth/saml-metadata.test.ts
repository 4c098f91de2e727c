// SAML SP metadata at /auth/auth/saml/metadata (omniauth-saml's path under Mastodon's /auth/auth,
// application/xml), built by node-saml: 404 when SAML is off; the entity id, the ACS URL and,
// with this server's certificate and key configured (samlCert, samlPrivateKey), the certificate
// for signing and encryption. With them, the AuthnRequest is signed (verified here with the
// certificate) and an encrypted assertion signs in.
import assert from "node:assert/strict";
import { verify } from "node:crypto";
import { readFileSync } from "node:fs";
import { test } from "node:test";
import { inflateRawSync } from "node:zlib";
import { XMLParser } from "fast-xml-parser";
import { Browser, formWithButton } from "../api/oauth-helpers.ts";
import { startTestServer } from "../helpers/server.ts";
import { IDP, encryptAssertion, idpKeys, respond } from "./saml-idp.ts";

// A throwaway self-signed certificate and key for tests only.
const fixture = (f: string) => readFileSync(new URL(`../fixtures/saml/${f}`, import.meta.url), "utf8");
const SP_CERT = fixture("sp-cert.pem");
const SP_KEY = fixture("sp-key.pem");
const certBody = (pem: string) => pem.replace(/-----[A-Z ]+-----|\s/g, "");

const parse = (xml: string) => new XMLParser({ ignoreAttributes: false, attributeNamePrefix: "@", removeNSPrefix: true }).parse(xml);

test("SAML SP metadata: 404 when off; entity id, ACS and certificate; signed requests and encrypted assertions", async (t) => {
  const off = await startTestServer();
  t.after(() => off.close());
  const none = await fetch(`${off.url}/auth/auth/saml/metadata`);
  assert.equal(none.status, 404);
  assert.deepEqual(await none.json(), { error: "Record not found" });

  const s = await startTestServer({ config: { samlEntryPoint: `${IDP}/sso`, samlIdpCert: idpKeys.publicKey, samlCert: SP_CERT, samlPrivateKey: SP_KEY, samlAssumeEmailVerified: true } });
  t.after(() => s.close());
  const entityId = `${s.url}/auth/auth/saml/metadata`;
  const callback = `${s.url}/auth/auth/saml/callback`;
  const res = await fetch(entityId);
  assert.equal(res.status, 200);
  assert.equal(res.headers.get("content-type"), "application/xml; charset=utf-8");
  const text = await res.text();
  assert.ok(!text.includes("PRIVATE KEY") && !text.includes(certBody(SP_KEY).slice(0, 40)), "the key never leaks");
  const ed = parse(text).EntityDescriptor;
  assert.equal(ed["@entityID"], entityId);
  const sp = ed.SPSSODescriptor;
  assert.equal(sp["@protocolSupportEnumeration"], "urn:oasis:names:tc:SAML:2.0:protocol");
  assert.equal(sp["@AuthnRequestsSigned"], "true");
  assert.equal(sp["@WantAssertionsSigned"], "true");
  assert.equal(sp.AssertionConsumerService["@Location"], callback);
  assert.equal(sp.AssertionConsumerService["@Binding"], "urn:oasis:names:tc:SAML:2.0:bindings:HTTP-POST");
  const keys = [sp.KeyDescriptor].flat(2).map((k: any) => [k["@use"], certBody(String(k.KeyInfo.X509Data.X509Certificate))]);
  assert.deepEqual(keys.sort(), [["encryption", certBody(SP_CERT)], ["signing", certBody(SP_CERT)]]);

  // The AuthnRequest is signed with our key (HTTP-Redirect binding: over the query's octets).
  const b = new Browser(s.url);
  const page = await b.fetch("/auth/sign_in");
  const start = await b.fetch("/auth/auth/saml", { form: formWithButton(page.text, "SAML").fields });
  assert.equal(start.status, 302);
  const url = new URL(start.location!);
  assert.equal(url.searchParams.get("SigAlg"), "http://www.w3.org/2001/04/xmldsig-more#rsa-sha256");
  const signedOctets = url.search.slice(1).replace(/&Signature=[^&]*$/, "");
  assert.ok(verify("sha256", Buffer.from(signedOctets), SP_CERT, Buffer.from(url.searchParams.get("Signature")!, "base64")), "the request's signature verifies with the SP certificate");
  const request = inflateRawSync(Buffer.from(url.searchParams.get("SAMLRequest")!, "base64")).toString();
  const requestId = /\bID="([^"]+)"/.exec(request)![1];

  // An assertion encrypted to our certificate (and signed by the IdP) signs in.
  const encrypted = await encryptAssertion(respond({ requestId, callback, audience: entityId, nameId: "hana" }), SP_CERT);
  assert.ok(Buffer.from(encrypted, "base64").toString().includes("<saml:EncryptedAssertion>"));
  const ok = await b.fetch("/auth/auth/saml/callback", { form: { SAMLResponse: encrypted, RelayState: url.searchParams.get("RelayState")! } });
  assert.equal(ok.status, 302, ok.text);
  assert.match((await b.fetch("/auth/sign_in")).text, /signed in as <strong>@hana@/);
});
