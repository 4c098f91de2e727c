// HTTP signatures (AP §10): draft-cavage-http-signatures-12 (rsa-sha256 / hs2019) and RFC 9421,
// signing and verifying. Pure functions over requests and keys: no database, no network.
import { sign, type KeyObject } from "node:crypto";
import { privateKeyObject } from "./key-objects.ts";
import { parseCavageSignature } from "./signature-cavage.ts";
import { type SignatureDetail, SignatureError, sha256, verifyWithKey } from "./signature-common.ts";
import { parseRfc9421Signature } from "./signature-rfc9421.ts";
import { serializeBareItem } from "./structured-fields.ts";

export { SignatureError };

export type SignatureScheme = "cavage" | "rfc9421";

export interface SignKey {
  /** The publicKey id, e.g. `https://host/users/alice#main-key`. */
  keyId: string;
  privateKeyPem: string;
}

export interface OutgoingRequest {
  method: "GET" | "POST";
  url: string;
  /** Headers already set (content-type, accept...); names in any case. */
  headers: Record<string, string>;
  body?: string | Buffer;
}

/**
 * The signature headers to add to a request: for cavage `host`, `date`, `digest` (POST) and
 * `signature`; for RFC 9421 `content-digest` (POST), `signature-input` and `signature`.
 * Returned as a new object with the input headers included (lower-case names).
 * A POST without a content-type is given `application/activity+json` (it is signed).
 */
export function signRequest(req: OutgoingRequest, key: SignKey, scheme: SignatureScheme, now: number = Date.now()): Record<string, string> {
  const url = new URL(req.url);
  const headers: Record<string, string> = {};
  for (const [k, v] of Object.entries(req.headers)) headers[k.toLowerCase()] = v;
  headers.host = url.host;
  headers.date = new Date(now).toUTCString(); // IMF-fixdate
  const digest = req.method === "POST" ? sha256(Buffer.from(req.body ?? "")).toString("base64") : undefined;
  if (digest !== undefined) headers["content-type"] ??= "application/activity+json";
  const privateKey = privateKeyObject(key.privateKeyPem);

  if (scheme === "cavage") {
    if (privateKey.asymmetricKeyType !== "rsa") throw new Error("draft-cavage signing needs an RSA key");
    // The order of older Mastodon releases (AP §10.1); receivers follow the order listed.
    const names = ["(request-target)", "host", "date"];
    if (digest !== undefined) {
      headers.digest = `SHA-256=${digest}`;
      names.push("digest", "content-type");
    }
    const signingString = names
      .map((n) => (n === "(request-target)" ? `${n}: ${req.method.toLowerCase()} ${url.pathname}${url.search}` : `${n}: ${headers[n]}`))
      .join("\n");
    const signature = sign("sha256", Buffer.from(signingString), privateKey).toString("base64");
    headers.signature = `keyId="${key.keyId}",algorithm="rsa-sha256",headers="${names.join(" ")}",signature="${signature}"`;
    return headers;
  }

  const components = ['"@method"', '"@target-uri"'];
  const lines = [`"@method": ${req.method}`, `"@target-uri": ${url.href}`];
  if (digest !== undefined) {
    headers["content-digest"] = `sha-256=:${digest}:`;
    components.push('"content-digest"');
    lines.push(`"content-digest": ${headers["content-digest"]}`);
  }
  const params = `(${components.join(" ")});created=${Math.floor(now / 1000)};keyid=${serializeBareItem({ type: "string", value: key.keyId })}`;
  lines.push(`"@signature-params": ${params}`);
  // Ed25519 signs the message itself (no digest name); RSA is PKCS#1 v1.5 with SHA-256.
  const algorithm = privateKey.asymmetricKeyType === "ed25519" ? null : "sha256";
  const signature = sign(algorithm, Buffer.from(lines.join("\n")), privateKey).toString("base64");
  headers["signature-input"] = `sig1=${params}`;
  headers.signature = `sig1=:${signature}:`;
  return headers;
}

/** An incoming request as the verifier needs it. */
export interface IncomingRequest {
  method: string;
  /** Path and query exactly as received (`/users/a/inbox?x=1`). */
  target: string;
  /** Absolute URL as the client addressed it (scheme://host/target), for RFC 9421 @target-uri. */
  url: string;
  headers: Headers;
  /** The raw body of a POST. */
  body?: Buffer;
}

export interface ParsedSignature {
  scheme: SignatureScheme;
  keyId: string;
  /** Signature time in ms (Date header or `created`). */
  createdAt: number;
  /** Opaque data the verifier needs. */
  detail: unknown;
}

/**
 * Reads the `Signature` (cavage) or `Signature-Input`/`Signature` (RFC 9421) headers and checks
 * everything that needs no key: required components, the time window (AP §10.2: ~1 h future,
 * expiry + 1 h past) and the body digest. Throws SignatureError.
 */
export function parseRequestSignature(req: IncomingRequest, now: number): ParsedSignature {
  const input = req.headers.get("signature-input");
  if (input !== null) return parseRfc9421Signature(req, input, now);
  const signature = req.headers.get("signature");
  if (signature === null) throw new SignatureError(401, "Request is not signed");
  return parseCavageSignature(req, signature, now);
}

function isDetail(d: unknown): d is SignatureDetail {
  const kind = (d as { kind?: unknown } | null)?.kind;
  return (kind === "cavage" || kind === "rfc9421") && Buffer.isBuffer((d as { signature?: unknown }).signature);
}

/** Verifies the signature with the signer's public key. Throws SignatureError(401). */
export function verifyRequestSignature(_req: IncomingRequest, sig: ParsedSignature, key: KeyObject): void {
  const d = sig.detail;
  if (!isDetail(d)) throw new SignatureError(401, "Not a parsed signature");
  const keyType = key.asymmetricKeyType;
  if (d.kind === "cavage") {
    // rsa-sha256 and hs2019 alike are RSA-SHA256 in practice (AP §10.2).
    if (keyType !== "rsa") throw new SignatureError(401, "draft-cavage signatures need an RSA key");
    if (!d.candidates.some((c) => verifyWithKey(c, d.signature, key))) throw new SignatureError(401, "Signature verification failed");
    return;
  }
  const expected = keyType === "rsa" ? "rsa-v1_5-sha256" : keyType === "ed25519" ? "ed25519" : undefined;
  if (!expected) throw new SignatureError(401, `Unsupported key type ${keyType}`);
  if (d.alg !== undefined && d.alg !== expected) throw new SignatureError(401, `Signature algorithm ${d.alg} does not fit the ${keyType} key`);
  if (!verifyWithKey(d.base, d.signature, key)) throw new SignatureError(401, "Signature verification failed");
}
