import { test } from "node:test";
import assert from "node:assert/strict";
import { createHash, generateKeyPairSync, sign, verify, type KeyObject } from "node:crypto";
import {
  type IncomingRequest,
  parseRequestSignature,
  SignatureError,
  signRequest,
  verifyRequestSignature,
} from "../../src/federation/net/http-signatures.ts";

// Fixed clock: Sun, 01 Feb 2026 09:30:13 GMT (the AP §10.1 example).
const NOW = Date.UTC(2026, 1, 1, 9, 30, 13);
const MIN = 60_000;
const KEY_ID = "https://remote.example/users/bob#main-key";

function rsaPair() {
  const { publicKey, privateKey } = generateKeyPairSync("rsa", { modulusLength: 2048 });
  return { publicKey, privateKey, pem: privateKey.export({ type: "pkcs8", format: "pem" }) as string };
}
const alice = rsaPair();
const mallory = rsaPair();
const ed = generateKeyPairSync("ed25519");
const edPem = ed.privateKey.export({ type: "pkcs8", format: "pem" }) as string;

const BODY = Buffer.from('{"type":"Create","id":"https://remote.example/activities/1"}');
const b64sha = (b: Buffer | string) => createHash("sha256").update(b).digest("base64");
const httpDate = (ms: number) => new Date(ms).toUTCString();

/** An incoming request to roost.example as the inbox route would hand it over. */
function incoming(method: string, target: string, headers: Record<string, string>, body?: Buffer): IncomingRequest {
  return { method, target, url: `https://roost.example${target}`, headers: new Headers({ host: "roost.example", ...headers }), body };
}

interface CavageSpec {
  method: "GET" | "POST";
  target: string;
  /** Headers as sent (besides host). */
  headers: Record<string, string>;
  /** Names in the `headers` param, in order; the signing string is built from them here. */
  covered: string[];
  algorithm?: string | null;
  keyId?: string;
  key?: KeyObject;
  /** Extra params (created, expires) written into the header and used for pseudo-headers. */
  params?: Record<string, string>;
  /** Target used in the signing string when it differs from what is requested. */
  signedTarget?: string;
  body?: Buffer;
}

/** Builds a draft-cavage signature by hand: signing string, RSA-SHA256, header text. */
function handCavage(s: CavageSpec): IncomingRequest {
  const all: Record<string, string> = { host: "roost.example", ...s.headers };
  const line = (name: string) => {
    if (name === "(request-target)") return `(request-target): ${s.method.toLowerCase()} ${s.signedTarget ?? s.target}`;
    if (name === "(created)" || name === "(expires)") return `${name}: ${s.params?.[name.slice(1, -1)]}`;
    return `${name}: ${all[name]}`;
  };
  const signingString = s.covered.map(line).join("\n");
  const signature = sign("sha256", Buffer.from(signingString), s.key ?? alice.privateKey).toString("base64");
  const parts = [`keyId="${s.keyId ?? KEY_ID}"`];
  if (s.algorithm !== null) parts.push(`algorithm="${s.algorithm ?? "rsa-sha256"}"`);
  for (const [k, v] of Object.entries(s.params ?? {})) parts.push(`${k}=${v}`);
  parts.push(`headers="${s.covered.join(" ")}"`, `signature="${signature}"`);
  return incoming(s.method, s.target, { ...s.headers, signature: parts.join(",") }, s.body);
}

function postSpec(over: Partial<CavageSpec> = {}): CavageSpec {
  return {
    method: "POST",
    target: "/users/alice/inbox",
    headers: { date: httpDate(NOW), "content-type": "application/activity+json", digest: `SHA-256=${b64sha(BODY)}` },
    // Mastodon 4.7's order (AP §10.1): receivers must follow the order given.
    covered: ["host", "date", "content-type", "digest", "(request-target)"],
    body: BODY,
    ...over,
  };
}

function accept(req: IncomingRequest, key: KeyObject = alice.publicKey, now = NOW) {
  const sig = parseRequestSignature(req, now);
  verifyRequestSignature(req, sig, key);
  return sig;
}

function refuse(fn: () => unknown, status: 400 | 401, message: RegExp): void {
  assert.throws(fn, (err: unknown) => {
    assert.ok(err instanceof SignatureError, `not a SignatureError: ${String(err)}`);
    assert.equal(err.status, status, err.message);
    assert.match(err.message, message);
    return true;
  });
}

const refuseAll = (req: IncomingRequest, status: 400 | 401, message: RegExp, key = alice.publicKey, now = NOW) =>
  refuse(() => accept(req, key, now), status, message);

test("cavage: a hand-built Mastodon POST is accepted", () => {
  const sig = accept(handCavage(postSpec()));
  assert.equal(sig.scheme, "cavage");
  assert.equal(sig.keyId, KEY_ID);
  assert.equal(sig.createdAt, NOW);
});

test("cavage: our POST signature is exactly AP §10.1 and verifies by hand", () => {
  const out = signRequest(
    { method: "POST", url: "https://remote.example/users/bob/inbox", headers: { "Content-Type": "application/activity+json" }, body: BODY },
    { keyId: "https://roost.example/users/alice#main-key", privateKeyPem: alice.pem },
    "cavage",
    NOW,
  );
  assert.equal(out.date, "Sun, 01 Feb 2026 09:30:13 GMT");
  assert.equal(out.host, "remote.example");
  assert.equal(out.digest, `SHA-256=${b64sha(BODY)}`);
  assert.equal(out["content-type"], "application/activity+json");
  const m = /^keyId="https:\/\/roost\.example\/users\/alice#main-key",algorithm="rsa-sha256",headers="\(request-target\) host date digest content-type",signature="([A-Za-z0-9+/=]+)"$/.exec(out.signature);
  assert.ok(m, out.signature);
  const signingString = [
    "(request-target): post /users/bob/inbox",
    "host: remote.example",
    "date: Sun, 01 Feb 2026 09:30:13 GMT",
    `digest: SHA-256=${b64sha(BODY)}`,
    "content-type: application/activity+json",
  ].join("\n");
  assert.equal(verify("sha256", Buffer.from(signingString), alice.publicKey, Buffer.from(m[1], "base64")), true);

  // And our verifier takes it as received.
  const req: IncomingRequest = { method: "POST", target: "/users/bob/inbox", url: "https://remote.example/users/bob/inbox", headers: new Headers(out), body: BODY };
  assert.equal(accept(req).keyId, "https://roost.example/users/alice#main-key");
});

test("cavage: our GET signature covers (request-target) host date, with the query", () => {
  const out = signRequest(
    { method: "GET", url: "https://remote.example/users/bob/outbox?page=true", headers: { accept: "application/activity+json" } },
    { keyId: "https://roost.example/actor#main-key", privateKeyPem: alice.pem },
    "cavage",
    NOW,
  );
  assert.equal(out.digest, undefined);
  assert.equal(out.accept, "application/activity+json");
  const m = /headers="\(request-target\) host date",signature="([^"]+)"$/.exec(out.signature);
  assert.ok(m, out.signature);
  const signingString = "(request-target): get /users/bob/outbox?page=true\nhost: remote.example\ndate: Sun, 01 Feb 2026 09:30:13 GMT";
  assert.equal(verify("sha256", Buffer.from(signingString), alice.publicKey, Buffer.from(m[1], "base64")), true);
});

test("cavage: tampered variants are refused with 401", () => {
  // Digest of another body, correctly signed: the signature is fine, the digest is not.
  refuseAll(handCavage(postSpec({ headers: { ...postSpec().headers, digest: `SHA-256=${b64sha("other")}` } })), 401, /Digest mismatch/);
  // Body changed after signing.
  refuseAll({ ...handCavage(postSpec()), body: Buffer.from('{"type":"Delete"}') }, 401, /Digest mismatch/);
  // Signed by someone else's key.
  refuseAll(handCavage(postSpec({ key: mallory.privateKey })), 401, /verification failed/);
  refuseAll(handCavage(postSpec()), 401, /verification failed/, mallory.publicKey);
  // A header dropped from the list after signing.
  const req = handCavage(postSpec());
  const edited = req.headers.get("signature")!.replace('headers="host date content-type digest (request-target)"', 'headers="host date digest (request-target)"');
  refuseAll(incoming("POST", req.target, { ...Object.fromEntries(req.headers), signature: edited }, BODY), 401, /verification failed/);
  // A header value changed after signing.
  refuseAll(incoming("POST", req.target, { ...Object.fromEntries(req.headers), "content-type": "text/plain" }, BODY), 401, /verification failed/);
  // Replayed to another inbox.
  refuseAll({ ...handCavage(postSpec()), target: "/inbox" }, 401, /verification failed/);
  // A listed header that is not in the request.
  refuseAll(handCavage(postSpec({ covered: ["(request-target)", "host", "date", "digest", "x-missing"] })), 401, /x-missing is missing/);
});

test("cavage: the time window (65 minutes back, 1 hour ahead)", () => {
  const at = (ms: number) => handCavage(postSpec({ headers: { ...postSpec().headers, date: httpDate(ms) } }));
  assert.equal(accept(at(NOW - 64 * MIN)).createdAt, NOW - 64 * MIN);
  refuseAll(at(NOW - 66 * MIN), 401, /expired/);
  refuseAll(at(NOW - 24 * 60 * MIN), 401, /expired/);
  assert.equal(accept(at(NOW + 59 * MIN)).createdAt, NOW + 59 * MIN);
  refuseAll(at(NOW + 61 * MIN), 401, /future/);
  refuseAll(handCavage(postSpec({ headers: { ...postSpec().headers, date: "yesterday-ish" } })), 401, /Invalid Date/);
});

test("cavage: required coverage", () => {
  // POST without digest in the list.
  refuseAll(handCavage(postSpec({ covered: ["(request-target)", "host", "date"] })), 401, /must cover digest/);
  // Neither date nor (created).
  refuseAll(handCavage(postSpec({ covered: ["(request-target)", "host", "digest"] })), 401, /date or \(created\)/);
  // Neither (request-target) nor digest (a GET).
  const get = { method: "GET" as const, target: "/users/alice", headers: { date: httpDate(NOW) }, body: undefined };
  refuseAll(handCavage({ ...get, covered: ["host", "date"] }), 401, /\(request-target\) or digest/);
  // GET without host.
  refuseAll(handCavage({ ...get, covered: ["(request-target)", "date"] }), 401, /must cover host/);
  assert.equal(accept(handCavage({ ...get, covered: ["(request-target)", "host", "date"] })).keyId, KEY_ID);
  // rsa-sha256 default list is just `date`.
  refuseAll(incoming("GET", "/users/alice", { date: httpDate(NOW), signature: `keyId="${KEY_ID}",algorithm="rsa-sha256",signature="AAAA"` }), 401, /\(request-target\) or digest/);
  refuseAll(handCavage(postSpec({ algorithm: "hmac-sha256" })), 401, /Unsupported signature algorithm/);
});

test("cavage: Digest may list several algorithms; SHA-256 must be one", () => {
  const sha512 = createHash("sha512").update(BODY).digest("base64");
  const several = { ...postSpec().headers, digest: `SHA-512=${sha512},sha-256=${b64sha(BODY)}` };
  assert.equal(accept(handCavage(postSpec({ headers: several }))).keyId, KEY_ID);
  refuseAll(handCavage(postSpec({ headers: { ...postSpec().headers, digest: `SHA-512=${sha512}` } })), 401, /no SHA-256/);
});

test("cavage: hs2019 with (created) and (expires)", () => {
  const created = (NOW - 2 * MIN) / 1000;
  const spec = (covered: string[], params: Record<string, string>, algorithm: string | null = "hs2019") =>
    handCavage(postSpec({ algorithm, covered, params, headers: { "content-type": "application/activity+json", digest: `SHA-256=${b64sha(BODY)}` } }));
  const withCreated = ["(request-target)", "(created)", "host", "digest"];
  assert.equal(accept(spec(withCreated, { created: String(created) })).createdAt, NOW - 2 * MIN);
  // Missing algorithm means hs2019.
  assert.equal(accept(spec(withCreated, { created: String(created) }, null)).createdAt, NOW - 2 * MIN);
  // (created) is refused with rsa-sha256.
  refuseAll(spec(withCreated, { created: String(created) }, "rsa-sha256"), 401, /only allowed with algorithm hs2019/);
  // An expires later than the default 5 minutes keeps an old signature valid...
  const old = String((NOW - 3 * 60 * MIN) / 1000);
  const withExpires = [...withCreated, "(expires)"];
  assert.equal(accept(spec(withExpires, { created: old, expires: String((NOW + 60 * MIN) / 1000) })).keyId, KEY_ID);
  refuseAll(spec(withCreated, { created: old }), 401, /expired/);
  // ...a past one ends it, and 12 hours is the cap.
  refuseAll(spec(withExpires, { created: String((NOW - 70 * MIN) / 1000), expires: String((NOW - 61 * MIN) / 1000) }), 401, /expired/);
  refuseAll(spec(withExpires, { created: String((NOW - 13 * 60 * MIN - MIN) / 1000), expires: String((NOW + 60 * MIN) / 1000) }), 401, /expired/);
  // (created) signed but no created parameter.
  refuseAll(spec(withCreated, {}), 400, /created/);
});

test("cavage: an unsigned created parameter cannot refresh an old Date", () => {
  const req = handCavage(postSpec({
    algorithm: "hs2019",
    covered: ["(request-target)", "host", "date", "digest"],
    headers: { ...postSpec().headers, date: httpDate(NOW - 2 * 60 * MIN) },
    params: { created: String(NOW / 1000) },
  }));
  refuseAll(req, 401, /expired/);
});

test("cavage: GoToSocial style (hs2019, key path without fragment, query-string variants)", () => {
  const gtsKey = "https://gts.example/users/bob/main-key";
  const post = handCavage(postSpec({ algorithm: "hs2019", keyId: gtsKey, covered: ["(request-target)", "host", "date", "digest"] }));
  assert.equal(accept(post).keyId, gtsKey);

  const get = (signedTarget: string) =>
    handCavage({ method: "GET", target: "/users/alice/outbox?page=true", signedTarget, headers: { date: httpDate(NOW) }, covered: ["(request-target)", "host", "date"], algorithm: "hs2019", keyId: gtsKey });
  assert.equal(accept(get("/users/alice/outbox?page=true")).keyId, gtsKey);
  assert.equal(accept(get("/users/alice/outbox")).keyId, gtsKey);
  refuseAll(get("/users/alice/outbox?page=false"), 401, /verification failed/);
});

test("cavage: malformed headers are 400, an unsigned request 401", () => {
  const sig = (value: string) => incoming("POST", "/inbox", { ...postSpec().headers, signature: value }, BODY);
  refuseAll(sig(`keyId="${KEY_ID}",keyId="https://evil.example/k",headers="date",signature="AAAA"`), 400, /duplicate parameter keyId/);
  refuseAll(sig(`keyId="${KEY_ID}",signature="AAAA`), 400, /unterminated/);
  refuseAll(sig(`keyId="${KEY_ID}" signature="AAAA"`), 400, /expected ','/);
  refuseAll(sig(`headers="date",signature="AAAA"`), 400, /keyId and signature/);
  refuseAll(sig(`keyId="${KEY_ID}",headers="(request-target) host date digest",signature="not base64!"`), 400, /base64/);
  refuseAll(sig(""), 400, /empty/);
  refuseAll(incoming("POST", "/inbox", postSpec().headers, BODY), 401, /not signed/);
  // An Ed25519 key cannot verify a cavage signature (RSA-SHA256 only).
  refuseAll(handCavage(postSpec()), 401, /RSA key/, ed.publicKey);
});

// RFC 9421

const INBOX_URL = "https://remote.example/users/bob/inbox";
const received = (out: Record<string, string>, method: string, url: string, body?: Buffer): IncomingRequest => {
  const u = new URL(url);
  return { method, target: u.pathname + u.search, url, headers: new Headers(out), body };
};

test("rfc9421: a hand-built RSA signature is accepted", () => {
  const created = NOW / 1000 - 30;
  const params = `("@method" "@target-uri" "content-digest");created=${created};keyid="${KEY_ID}"`;
  const contentDigest = `sha-256=:${b64sha(BODY)}:`;
  const base = [
    '"@method": POST',
    '"@target-uri": https://roost.example/users/alice/inbox',
    `"content-digest": ${contentDigest}`,
    `"@signature-params": ${params}`,
  ].join("\n");
  const signature = sign("sha256", Buffer.from(base), alice.privateKey).toString("base64");
  const req = incoming("POST", "/users/alice/inbox", { "content-digest": contentDigest, "signature-input": `sig1=${params}`, signature: `sig1=:${signature}:` }, BODY);
  const sig = accept(req);
  assert.equal(sig.scheme, "rfc9421");
  assert.equal(sig.keyId, KEY_ID);
  assert.equal(sig.createdAt, NOW - 30_000);
});

test("rfc9421: our POST signature has Mastodon's shape, verifies by hand and round-trips", () => {
  const out = signRequest({ method: "POST", url: INBOX_URL, headers: { "content-type": "application/activity+json" }, body: BODY }, { keyId: "https://roost.example/users/alice#main-key", privateKeyPem: alice.pem }, "rfc9421", NOW);
  assert.equal(out["content-digest"], `sha-256=:${b64sha(BODY)}:`);
  const params = '("@method" "@target-uri" "content-digest");created=1769938213;keyid="https://roost.example/users/alice#main-key"';
  assert.equal(out["signature-input"], `sig1=${params}`);
  const m = /^sig1=:([A-Za-z0-9+/=]+):$/.exec(out.signature);
  assert.ok(m, out.signature);
  const base = `"@method": POST\n"@target-uri": ${INBOX_URL}\n"content-digest": sha-256=:${b64sha(BODY)}:\n"@signature-params": ${params}`;
  assert.equal(verify("sha256", Buffer.from(base), alice.publicKey, Buffer.from(m[1], "base64")), true);
  assert.equal(accept(received(out, "POST", INBOX_URL, BODY)).keyId, "https://roost.example/users/alice#main-key");

  const get = signRequest({ method: "GET", url: "https://remote.example/users/bob", headers: {} }, { keyId: KEY_ID, privateKeyPem: alice.pem }, "rfc9421", NOW);
  assert.equal(get["signature-input"], `sig1=("@method" "@target-uri");created=1769938213;keyid="${KEY_ID}"`);
  assert.equal(get["content-digest"], undefined);
  assert.equal(accept(received(get, "GET", "https://remote.example/users/bob")).createdAt, NOW);
});

test("rfc9421: tampered variants are refused with 401", () => {
  const key = { keyId: KEY_ID, privateKeyPem: alice.pem };
  const out = signRequest({ method: "POST", url: INBOX_URL, headers: { "content-type": "application/activity+json" }, body: BODY }, key, "rfc9421", NOW);
  const other = Buffer.from('{"type":"Delete"}');
  refuseAll(received(out, "POST", "https://remote.example/users/carol/inbox", BODY), 401, /verification failed/);
  refuseAll(received(out, "POST", INBOX_URL, other), 401, /Content-Digest mismatch/);
  // Body and Content-Digest both swapped: the signature no longer matches.
  refuseAll(received({ ...out, "content-digest": `sha-256=:${b64sha(other)}:` }, "POST", INBOX_URL, other), 401, /verification failed/);
  refuseAll(received(out, "POST", INBOX_URL, BODY), 401, /verification failed/, mallory.publicKey);
  refuseAll(received(out, "POST", INBOX_URL, BODY), 401, /expired/, alice.publicKey, NOW + 66 * MIN);
  refuseAll(received(out, "POST", INBOX_URL, BODY), 401, /future/, alice.publicKey, NOW - 61 * MIN);
  const noDigest = { ...out };
  delete noDigest["content-digest"];
  refuseAll(received(noDigest, "POST", INBOX_URL, BODY), 401, /Content-Digest header missing/);

  // A GET-shaped signature (no content-digest) on a POST.
  const getShaped = signRequest({ method: "GET", url: INBOX_URL, headers: {} }, key, "rfc9421", NOW);
  refuseAll(received({ ...getShaped, "content-digest": out["content-digest"] }, "POST", INBOX_URL, BODY), 401, /must cover content-digest/);
  // Only @method covered.
  refuseAll(received({ ...getShaped, "signature-input": getShaped["signature-input"].replace(' "@target-uri"', "") }, "GET", INBOX_URL), 401, /@method and @target-uri/);
});

test("rfc9421: Ed25519 keys, and the alg parameter must fit the key", () => {
  const out = signRequest({ method: "POST", url: INBOX_URL, headers: {}, body: BODY }, { keyId: KEY_ID, privateKeyPem: edPem }, "rfc9421", NOW);
  assert.equal(accept(received(out, "POST", INBOX_URL, BODY), ed.publicKey).keyId, KEY_ID);
  refuseAll(received(out, "POST", INBOX_URL, BODY), 401, /verification failed/, alice.publicKey);
  const withAlg = { ...out, "signature-input": `${out["signature-input"]};alg="rsa-v1_5-sha256"` };
  refuseAll(received(withAlg, "POST", INBOX_URL, BODY), 401, /does not fit/, ed.publicKey);
  assert.throws(() => signRequest({ method: "GET", url: INBOX_URL, headers: {} }, { keyId: KEY_ID, privateKeyPem: edPem }, "cavage", NOW), /RSA key/);
});

test("rfc9421: malformed or ambiguous headers", () => {
  const key = { keyId: KEY_ID, privateKeyPem: alice.pem };
  const out = signRequest({ method: "GET", url: "https://remote.example/users/bob", headers: {} }, key, "rfc9421", NOW);
  const get = (h: Record<string, string>) => received({ ...out, ...h }, "GET", "https://remote.example/users/bob");
  refuseAll(get({ "signature-input": 'sig1=("@method" "@target-uri";created=1' }), 400, /Malformed Signature-Input/);
  refuseAll(get({ "signature-input": `${out["signature-input"]}, sig2=("@method" "@target-uri");created=1;keyid="k"` }), 401, /Only one signature/);
  refuseAll(get({ "signature-input": `sig1=("@method" "@target-uri");created=${NOW / 1000}` }), 400, /keyid/);
  refuseAll(get({ "signature-input": `sig1=("@method" "@target-uri");keyid="${KEY_ID}"` }), 400, /created/);
  refuseAll(get({ "signature-input": `sig1=("@method" "@target-uri");created="soon";keyid="${KEY_ID}"` }), 400, /created is not a number/);
  refuseAll(get({ signature: out.signature.replace("sig1=", "sig2=") }), 400, /labelled sig1/);
  refuseAll(get({ signature: "sig1=:not*base64:" }), 400, /Malformed Signature/);
  refuseAll(get({ "signature-input": `sig1=(@method "@target-uri");created=1;keyid="k"` }), 400, /Malformed Signature-Input/);
});
