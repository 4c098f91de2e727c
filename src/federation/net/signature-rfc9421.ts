// Incoming RFC 9421 HTTP Message Signatures (`Signature-Input` + `Signature`), checked as
// Mastodon does (AP §10.2): one signature, keyid and created required, @method and
// @target-uri covered, content-digest covered and matching on POST.
import type { IncomingRequest, ParsedSignature } from "./http-signatures.ts";
import { checkTimeWindow, SignatureError, sha256 } from "./signature-common.ts";
import { type BareItem, type Dictionary, type Item, parseDictionary, serializeInnerList, StructuredFieldError } from "./structured-fields.ts";

function dictionary(value: string, field: string): Dictionary {
  try {
    return parseDictionary(value);
  } catch (err) {
    if (err instanceof StructuredFieldError) throw new SignatureError(400, `Malformed ${field} header: ${err.message}`);
    throw err;
  }
}

function param(item: BareItem | undefined, type: "string" | "integer", name: string): string | number | undefined {
  if (item === undefined) return undefined;
  if (item.type !== type) throw new SignatureError(400, `Signature-Input parameter ${name} is not a ${type === "string" ? "string" : "number"}`);
  return item.value as string | number;
}

export function parseRfc9421Signature(req: IncomingRequest, input: string, now: number): ParsedSignature {
  const inputs = dictionary(input, "Signature-Input");
  if (inputs.size === 0) throw new SignatureError(400, "Malformed Signature-Input header: empty");
  if (inputs.size > 1) throw new SignatureError(401, "Only one signature is supported");
  const [label, member] = [...inputs][0];
  if (member.kind !== "list") throw new SignatureError(400, "Malformed Signature-Input header: expected an inner list");

  const signatures = dictionary(req.headers.get("signature") ?? "", "Signature");
  const sig = signatures.get(label);
  if (sig?.kind !== "item" || sig.value.type !== "bytes") throw new SignatureError(400, `No byte-sequence signature labelled ${label}`);

  const keyId = param(member.params.get("keyid"), "string", "keyid") as string | undefined;
  const created = param(member.params.get("created"), "integer", "created") as number | undefined;
  const expires = param(member.params.get("expires"), "integer", "expires") as number | undefined;
  const alg = param(member.params.get("alg"), "string", "alg") as string | undefined;
  if (!keyId) throw new SignatureError(400, "Signature-Input needs keyid");
  if (created === undefined) throw new SignatureError(400, "Signature-Input needs created");

  const components = member.items.map(componentName);
  if (new Set(components).size !== components.length) throw new SignatureError(400, "Signature-Input repeats a component");
  if (!components.includes("@method") || !components.includes("@target-uri")) {
    throw new SignatureError(401, "Signature must cover @method and @target-uri");
  }
  const post = req.method.toUpperCase() === "POST";
  if (post && !components.includes("content-digest")) throw new SignatureError(401, "A POST signature must cover content-digest");

  checkTimeWindow(created * 1000, expires !== undefined ? expires * 1000 : undefined, now);
  if (components.includes("content-digest")) checkContentDigest(req);

  const lines = components.map((name) => `"${name}": ${componentValue(req, name)}`);
  lines.push(`"@signature-params": ${serializeInnerList(member)}`);
  return {
    scheme: "rfc9421",
    keyId,
    createdAt: created * 1000,
    detail: { kind: "rfc9421", base: lines.join("\n"), signature: sig.value.value, alg },
  };
}

function componentName(item: Item): string {
  if (item.value.type !== "string") throw new SignatureError(400, "Signature-Input components must be strings");
  // Component parameters (;sf, ;key, ;bs, ;req...) are not needed by any peer we know.
  if (item.params.size > 0) throw new SignatureError(401, `Unsupported component parameters on ${item.value.value}`);
  return item.value.value;
}

function componentValue(req: IncomingRequest, name: string): string {
  if (name.startsWith("@")) {
    const url = new URL(req.url);
    switch (name) {
      case "@method":
        return req.method; // case-sensitive, not normalised (RFC 9421 §2.2.1)
      case "@target-uri":
        return req.url;
      case "@authority":
        return url.host.toLowerCase();
      case "@scheme":
        return url.protocol.slice(0, -1);
      case "@request-target":
        return req.target;
      case "@path":
        return url.pathname;
      case "@query":
        return url.search || "?";
      default:
        throw new SignatureError(401, `Unsupported derived component ${name}`);
    }
  }
  const value = req.headers.get(name);
  if (value === null) throw new SignatureError(401, `Signed header ${name} is missing`);
  return value.trim();
}

/** RFC 9530: `Content-Digest: sha-256=:…:` (other algorithms may sit beside it). */
function checkContentDigest(req: IncomingRequest): void {
  const header = req.headers.get("content-digest");
  if (header === null) throw new SignatureError(401, "Content-Digest header missing");
  const entry = dictionary(header, "Content-Digest").get("sha-256");
  if (entry?.kind !== "item" || entry.value.type !== "bytes") throw new SignatureError(401, "Content-Digest has no sha-256 value");
  if (!entry.value.value.equals(sha256(req.body ?? Buffer.alloc(0)))) throw new SignatureError(401, "Content-Digest mismatch");
}
