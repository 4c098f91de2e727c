// The SAML IdP of the tests: a Response whose Assertion is signed with a throwaway key
// (xml-crypto), optionally encrypted to the SP's certificate (xml-encryption).
import { createPublicKey, generateKeyPairSync, randomUUID } from "node:crypto";
import { SignedXml } from "xml-crypto";
import { encrypt } from "xml-encryption";

export const IDP = "https://idp.example/saml";
const pair = () => generateKeyPairSync("rsa", { modulusLength: 2048, publicKeyEncoding: { type: "spki", format: "pem" }, privateKeyEncoding: { type: "pkcs8", format: "pem" } });
export const idpKeys = pair();
export const otherKeys = pair();

export function respond(o: { requestId: string; callback: string; audience: string; nameId: string; assertionId?: string; key?: string }): string {
  const now = new Date();
  const iso = (ms: number) => new Date(now.getTime() + ms).toISOString();
  const assertionId = o.assertionId ?? `_a${randomUUID()}`;
  const xml = `<samlp:Response xmlns:samlp="urn:oasis:names:tc:SAML:2.0:protocol" xmlns:saml="urn:oasis:names:tc:SAML:2.0:assertion" ID="_r${randomUUID()}" Version="2.0" IssueInstant="${iso(0)}" Destination="${o.callback}" InResponseTo="${o.requestId}"><saml:Issuer>${IDP}</saml:Issuer><samlp:Status><samlp:StatusCode Value="urn:oasis:names:tc:SAML:2.0:status:Success"/></samlp:Status><saml:Assertion xmlns:saml="urn:oasis:names:tc:SAML:2.0:assertion" ID="${assertionId}" Version="2.0" IssueInstant="${iso(0)}"><saml:Issuer>${IDP}</saml:Issuer><saml:Subject><saml:NameID Format="urn:oasis:names:tc:SAML:1.1:nameid-format:unspecified">${o.nameId}</saml:NameID><saml:SubjectConfirmation Method="urn:oasis:names:tc:SAML:2.0:cm:bearer"><saml:SubjectConfirmationData InResponseTo="${o.requestId}" NotOnOrAfter="${iso(300_000)}" Recipient="${o.callback}"/></saml:SubjectConfirmation></saml:Subject><saml:Conditions NotBefore="${iso(-60_000)}" NotOnOrAfter="${iso(300_000)}"><saml:AudienceRestriction><saml:Audience>${o.audience}</saml:Audience></saml:AudienceRestriction></saml:Conditions><saml:AuthnStatement AuthnInstant="${iso(0)}" SessionIndex="_s1"><saml:AuthnContext><saml:AuthnContextClassRef>urn:oasis:names:tc:SAML:2.0:ac:classes:Password</saml:AuthnContextClassRef></saml:AuthnContext></saml:AuthnStatement><saml:AttributeStatement><saml:Attribute Name="urn:oid:0.9.2342.19200300.100.1.3"><saml:AttributeValue>${o.nameId}@idp.example</saml:AttributeValue></saml:Attribute><saml:Attribute Name="urn:oid:2.16.840.1.113730.3.1.241"><saml:AttributeValue>Gina G</saml:AttributeValue></saml:Attribute></saml:AttributeStatement></saml:Assertion></samlp:Response>`;
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


/** Replaces the signed Assertion of a (base64) Response by an EncryptedAssertion for the SP's certificate. */
export async function encryptAssertion(responseB64: string, spCertPem: string): Promise<string> {
  const xml = Buffer.from(responseB64, "base64").toString();
  const start = xml.indexOf("<saml:Assertion ");
  const end = xml.indexOf("</saml:Assertion>") + "</saml:Assertion>".length;
  const encrypted = await new Promise<string>((resolve, reject) =>
    encrypt(
      xml.slice(start, end),
      {
        rsa_pub: createPublicKey(spCertPem).export({ type: "spki", format: "pem" }),
        pem: spCertPem,
        encryptionAlgorithm: "http://www.w3.org/2009/xmlenc11#aes256-gcm",
        keyEncryptionAlgorithm: "http://www.w3.org/2001/04/xmlenc#rsa-oaep-mgf1p",
        disallowEncryptionWithInsecureAlgorithm: true,
      },
      (err, out) => (err ? reject(err) : resolve(out)),
    ),
  );
  const wrapped = `<saml:EncryptedAssertion>${encrypted}</saml:EncryptedAssertion>`;
  return Buffer.from(xml.slice(0, start) + wrapped + xml.slice(end)).toString("base64");
}
