// Incoming draft-cavage-http-signatures-12 `Signature` headers, checked as Mastodon does (AP §10.2).
import type { IncomingRequest, ParsedSignature } from "./http-signatures.ts";
import { checkTimeWindow, decodeBase64, SignatureError, sha256 } from "./signature-common.ts";

/** `name="quoted"` or `name=token` pairs separated by commas; duplicates are refused. */
export function parseCavageParams(header: string): Map<string, string> {
  const params = new Map<string, string>();
  function bad(why: string): never {
    throw new SignatureError(400, `Malformed Signature header: ${why}`);
  }
  let i = 0;
  const skipWs = () => {
    while (header[i] === " " || header[i] === "\t") i++;
  };
  skipWs();
  if (i >= header.length) bad("empty");
  while (i < header.length) {
    const name = /^[A-Za-z][A-Za-z0-9_-]*/.exec(header.slice(i))?.[0] ?? bad(`expected a parameter name at ${i}`);
    i += name.length;
    skipWs();
    if (header[i] !== "=") bad(`expected '=' after ${name}`);
    i++;
    skipWs();
    let value = "";
    if (header[i] === '"') {
      for (i++; ; i++) {
        const c = header[i];
        if (c === undefined) bad(`unterminated value of ${name}`);
        if (c === '"') break;
        value += c === "\\" ? (header[++i] ?? "") : c;
      }
      i++;
    } else {
      value = /^[^,\s"]+/.exec(header.slice(i))?.[0] ?? bad(`missing value of ${name}`);
      i += value.length;
    }
    if (params.has(name)) bad(`duplicate parameter ${name}`);
    params.set(name, value);
    skipWs();
    if (i < header.length) {
      if (header[i] !== ",") bad(`expected ',' at ${i}`);
      i++;
      skipWs();
      if (i >= header.length) bad("trailing ','");
    }
  }
  return params;
}

const INTEGER = /^\d{1,15}$/;
const NUMBER = /^\d{1,15}(\.\d+)?$/;

export function parseCavageSignature(req: IncomingRequest, header: string, now: number): ParsedSignature {
  const params = parseCavageParams(header);
  const keyId = params.get("keyId");
  const signatureB64 = params.get("signature");
  if (!keyId || !signatureB64) throw new SignatureError(400, "Signature header needs keyId and signature");
  const signature = decodeBase64(signatureB64, "signature");

  const algorithm = (params.get("algorithm") ?? "hs2019").toLowerCase();
  if (algorithm !== "rsa-sha256" && algorithm !== "hs2019") throw new SignatureError(401, `Unsupported signature algorithm ${algorithm}`);
  const hs2019 = algorithm === "hs2019";
  const listed = params.get("headers");
  const covered = listed === undefined ? [hs2019 ? "(created)" : "date"] : listed.toLowerCase().split(/\s+/).filter(Boolean);
  const covers = (name: string) => covered.includes(name);

  if (!hs2019 && (covers("(created)") || covers("(expires)"))) {
    throw new SignatureError(401, "(created) and (expires) are only allowed with algorithm hs2019");
  }
  if (!covers("date") && !covers("(created)")) throw new SignatureError(401, "Signature must cover date or (created)");
  if (!covers("(request-target)") && !covers("digest")) throw new SignatureError(401, "Signature must cover (request-target) or digest");
  const method = req.method.toUpperCase();
  if (method === "GET" && !covers("host")) throw new SignatureError(401, "A GET signature must cover host");
  if (method === "POST" && !covers("digest")) throw new SignatureError(401, "A POST signature must cover digest");

  // Only signed parameters count for the time window: an unsigned `created` could be replaced
  // by anyone replaying the request.
  const created = covers("(created)") ? params.get("created") : undefined;
  if (covers("(created)") && !(created && INTEGER.test(created))) throw new SignatureError(400, "(created) is signed but created is not an integer");
  const expires = covers("(expires)") ? params.get("expires") : undefined;
  if (covers("(expires)") && !(expires && NUMBER.test(expires))) throw new SignatureError(400, "(expires) is signed but expires is not a number");

  const createdAt = created !== undefined ? Number(created) * 1000 : dateHeaderTime(req);
  checkTimeWindow(createdAt, expires !== undefined ? Number(expires) * 1000 : undefined, now);
  if (covers("digest")) checkDigest(req.headers.get("digest"), req.body ?? Buffer.alloc(0));

  // GoToSocial and Mastodon < 4.4 sign the path without the query: try both (AP §10.2, §16).
  const targets = [req.target];
  const q = req.target.indexOf("?");
  if (q >= 0) targets.push(req.target.slice(0, q));
  const candidates = targets.map((target) =>
    covered
      .map((name) => {
        if (name === "(request-target)") return `(request-target): ${req.method.toLowerCase()} ${target}`;
        if (name === "(created)") return `(created): ${created}`;
        if (name === "(expires)") return `(expires): ${expires}`;
        const value = req.headers.get(name);
        if (value === null) throw new SignatureError(401, `Signed header ${name} is missing`);
        return `${name}: ${value}`;
      })
      .join("\n"),
  );
  return { scheme: "cavage", keyId, createdAt, detail: { kind: "cavage", candidates, signature } };
}

function dateHeaderTime(req: IncomingRequest): number {
  const date = req.headers.get("date");
  if (date === null) throw new SignatureError(401, "Date header missing");
  const t = Date.parse(date);
  if (Number.isNaN(t)) throw new SignatureError(401, "Invalid Date header");
  return t;
}

/** `Digest` may list several algorithms (`SHA-256=…,SHA-512=…`); SHA-256 must be there and match. */
function checkDigest(header: string | null, body: Buffer): void {
  if (header === null) throw new SignatureError(401, "Digest header missing");
  let value: string | undefined;
  for (const part of header.split(",")) {
    const eq = part.indexOf("=");
    if (eq > 0 && part.slice(0, eq).trim().toLowerCase() === "sha-256") value = part.slice(eq + 1).trim();
  }
  if (value === undefined) throw new SignatureError(401, "Digest header has no SHA-256 value");
  if (!Buffer.from(value, "base64").equals(sha256(body))) throw new SignatureError(401, "Digest mismatch");
}
