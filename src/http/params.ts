import type { H3Event } from "h3";
import { parse as parseLosslessJson } from "lossless-json";
import { ApiError, missingParam } from "../errors.ts";

/**
 * One parser for every way clients send parameters (Tusky: forms, Elk/masto.js: JSON,
 * Ivory: both, uploads: multipart). Query and body are merged, body winning. Form and query
 * keys follow Rails: `foo[]=a&foo[]=b` is an array, `source[privacy]=x` a nested hash,
 * `fields_attributes[0][name]=x` an indexed hash (read with `list()`). JSON integers beyond
 * 2^53 arrive as their exact digits (a string), so ids sent as numbers survive.
 */
export type Value = string | File | Value[] | { [k: string]: Value } | number | boolean | null;
type Obj = { [k: string]: Value };

const FORBIDDEN_KEYS = new Set(["__proto__", "prototype", "constructor"]);
const MAX_DEPTH = 8;
const MAX_KEYS = 1000;

function splitKey(key: string): string[] | undefined {
  const m = /^([^[\]]+)((?:\[[^[\]]*\])*)$/.exec(key);
  if (!m) return undefined;
  const parts = [m[1]];
  if (m[2]) for (const seg of m[2].slice(1, -1).split("][")) parts.push(seg);
  return parts.length > MAX_DEPTH ? undefined : parts;
}

/** Inserts a form value under a Rails-style key. Conflicting shapes keep the first value. */
export function setNested(target: Obj, key: string, value: Value): void {
  const parts = splitKey(key);
  if (!parts || parts.some((p) => FORBIDDEN_KEYS.has(p))) return;
  let cur: Obj | Value[] = target;
  for (let i = 0; i < parts.length; i++) {
    const part = parts[i];
    const last = i === parts.length - 1;
    const nextIsArray = !last && parts[i + 1] === "";
    if (Array.isArray(cur)) {
      if (part !== "") return;
      if (last) {
        cur.push(value);
        return;
      }
      // `a[][b]=1&a[][c]=2` is one hash, as in Rails: a key goes into the array's last hash
      // unless that hash has it already, which starts a new one.
      const lastItem: Value | undefined = cur[cur.length - 1];
      if (isObj(lastItem) && !hasPath(lastItem, parts.slice(i + 1))) {
        cur = lastItem;
        continue;
      }
      const obj: Obj = Object.create(null);
      cur.push(obj);
      cur = obj;
      continue;
    }
    if (part === "") return;
    if (last) {
      if (!(part in cur)) cur[part] = value;
      return;
    }
    const existing: Value | undefined = cur[part];
    if (existing === undefined) {
      const created: Obj | Value[] = nextIsArray ? [] : Object.create(null);
      cur[part] = created;
      cur = created;
    } else if (nextIsArray ? Array.isArray(existing) : isObj(existing)) {
      cur = existing as Obj | Value[];
    } else {
      return;
    }
  }
}

/**
 * Rails' params_hash_has_key?: whether the keys lead somewhere in `obj`; a key that appends to
 * an array (`[]`) never counts as taken.
 */
function hasPath(obj: Obj, parts: string[]): boolean {
  if (parts.includes("")) return false;
  let cur: Value = obj;
  for (const part of parts) {
    if (!isObj(cur) || !(part in cur)) return false;
    cur = cur[part];
  }
  return true;
}

function isObj(v: unknown): v is Obj {
  return typeof v === "object" && v !== null && !Array.isArray(v) && !(v instanceof File);
}

/**
 * JSON bodies: copy into null-prototype objects, dropping dangerous keys. Notes in `seen`
 * whether a number is an integer too large for a double (its digits were lost).
 */
function cleanJson(v: unknown, seen: { imprecise: boolean }, depth = 0): Value {
  if (depth > 32) throw new ApiError(400, "Malformed request body: nested too deeply");
  if (Array.isArray(v)) return v.map((x) => cleanJson(x, seen, depth + 1));
  if (v && typeof v === "object") {
    const o: Obj = Object.create(null);
    for (const [k, x] of Object.entries(v)) if (!FORBIDDEN_KEYS.has(k)) o[k] = cleanJson(x, seen, depth + 1);
    return o;
  }
  if (typeof v === "number" && Number.isInteger(v) && !Number.isSafeInteger(v)) seen.imprecise = true;
  return v as Value;
}

/** An integer beyond 2^53 stays its exact decimal text, as Ruby's JSON keeps it; others are numbers. */
function exactNumber(text: string): number | string {
  const n = Number(text);
  return Number.isSafeInteger(n) || !/^-?\d+$/.test(text) ? n : text;
}

/**
 * A JSON request body. Clients such as Mastodon.py send ids as JSON numbers, which
 * JSON.parse rounds (117672769330833407 becomes ...400). The native parser runs first (fast,
 * and it validates); only a body that held such an integer is parsed again by lossless-json,
 * which keeps it as its digits, so every `str()` read sees what the client sent.
 */
function parseJsonBody(text: string): Obj {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new ApiError(400, "Malformed JSON body");
  }
  if (!isObj(parsed)) throw new ApiError(400, "Malformed JSON body: expected an object");
  const seen = { imprecise: false };
  const body = cleanJson(parsed, seen) as Obj;
  if (!seen.imprecise) return body;
  try {
    // A repeated key keeps its last value, as with JSON.parse (lossless-json would throw).
    parsed = parseLosslessJson(text, null, { parseNumber: exactNumber, onDuplicateKey: ({ newValue }) => newValue });
  } catch {
    throw new ApiError(400, "Malformed JSON body");
  }
  return cleanJson(parsed, seen) as Obj;
}

export function parseQueryString(search: string, into: Obj = Object.create(null)): Obj {
  const sp = new URLSearchParams(search);
  let n = 0;
  for (const [k, v] of sp) {
    if (++n > MAX_KEYS) break;
    setNested(into, k, v);
  }
  return into;
}

async function readLimited(req: Request, limit: number): Promise<Uint8Array<ArrayBuffer>> {
  const declared = Number(req.headers.get("content-length") ?? "NaN");
  if (Number.isFinite(declared) && declared > limit) throw new ApiError(413, "Payload Too Large");
  if (!req.body) return new Uint8Array(new ArrayBuffer(0));
  const reader = req.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > limit) {
      await reader.cancel().catch(() => {});
      throw new ApiError(413, "Payload Too Large");
    }
    chunks.push(value);
  }
  const out = new Uint8Array(new ArrayBuffer(size));
  let off = 0;
  for (const c of chunks) {
    out.set(c, off);
    off += c.byteLength;
  }
  return out;
}

export interface BodyLimits {
  json: number;
  multipart: number;
}

/** Reads and merges query and body once per request; later calls get the same object. */
export async function readParams(event: H3Event, limits: BodyLimits): Promise<Params> {
  // Not `context.params`: h3 keeps the router's path parameters there.
  const ctx = event.context as { apiParams?: Params };
  if (ctx.apiParams) return ctx.apiParams;
  const merged = parseQueryString(event.url.search);
  const method = event.req.method;
  if (method !== "GET" && method !== "HEAD" && method !== "OPTIONS") {
    const rawCt = event.req.headers.get("content-type") ?? "";
    const ct = rawCt.toLowerCase();
    if (ct.startsWith("multipart/form-data")) {
      const buf = await readLimited(event.req, limits.multipart);
      let form: FormData;
      try {
        // The header as sent: the boundary is case-sensitive (Chromium's ----WebKitFormBoundary...).
        form = await new Response(buf as Uint8Array<ArrayBuffer>, { headers: { "content-type": rawCt } }).formData();
      } catch {
        throw new ApiError(400, "Malformed multipart body");
      }
      const body: Obj = Object.create(null);
      let n = 0;
      for (const [k, v] of form) {
        if (++n > MAX_KEYS) break;
        // The multipart limit is for files: a text field gets no more room than a JSON body.
        if (typeof v === "string" && v.length > limits.json) throw new ApiError(413, "Payload Too Large");
        setNested(body, k, v as string | File);
      }
      Object.assign(merged, body);
    } else {
      const buf = await readLimited(event.req, limits.json);
      const text = new TextDecoder().decode(buf);
      if (ct.includes("json")) {
        if (text.trim() !== "") Object.assign(merged, parseJsonBody(text));
      } else if (text.length > 0) {
        // application/x-www-form-urlencoded, or no content type (curl -d without -H).
        Object.assign(merged, parseQueryString(text));
      }
    }
  }
  const p = new Params(merged);
  ctx.apiParams = p;
  return p;
}

// Rails' ActiveModel::Type::Boolean: these are false, blank is nil, everything else true.
const FALSE_VALUES = new Set(["false", "0", "f", "F", "FALSE", "off", "OFF", "False", "Off"]);

export class Params {
  constructor(readonly raw: Obj) {}

  has(name: string): boolean {
    return this.raw[name] !== undefined;
  }

  /** A scalar as a string; arrays, hashes and files are ignored (Rails strong params). */
  str(name: string): string | undefined {
    const v = this.raw[name];
    if (typeof v === "string") return v;
    if (typeof v === "number" || typeof v === "boolean") return String(v);
    return undefined;
  }

  /** Like str() but a missing or blank value is Rails' ParameterMissing (400). */
  requireStr(name: string): string {
    const v = this.str(name);
    if (v === undefined || v.trim() === "") throw missingParam(name);
    return v;
  }

  /** Rails boolean casting; undefined when missing or blank. */
  bool(name: string): boolean | undefined {
    const v = this.raw[name];
    if (typeof v === "boolean") return v;
    if (typeof v === "number") return v !== 0;
    if (typeof v !== "string" || v === "") return undefined;
    return !FALSE_VALUES.has(v);
  }

  /** Lenient integer (Ruby's to_i): leading digits, else 0; undefined when missing. */
  int(name: string): number | undefined {
    const v = this.raw[name];
    if (typeof v === "number") return Number.isFinite(v) ? Math.trunc(v) : 0;
    if (typeof v === "boolean") return undefined;
    if (typeof v !== "string" || v.trim() === "") return undefined;
    const m = /^\s*([+-]?\d+)/.exec(v);
    if (!m) return 0;
    const n = Number(m[1]);
    return Number.isSafeInteger(n) ? n : n > 0 ? Number.MAX_SAFE_INTEGER : -Number.MAX_SAFE_INTEGER;
  }

  /**
   * An array of scalars as strings (`id[]=1&id[]=2` or a JSON array). A bare scalar is
   * accepted only with `allowScalar` (Mastodon reads a few params raw).
   */
  strArray(name: string, opts: { allowScalar?: boolean; max?: number } = {}): string[] | undefined {
    let v = this.raw[name];
    if (v === undefined) return undefined;
    if (!Array.isArray(v)) {
      if (!opts.allowScalar) return undefined;
      v = [v];
    }
    const out: string[] = [];
    for (const x of v) {
      if (typeof x === "string") out.push(x);
      else if (typeof x === "number" || typeof x === "boolean") out.push(String(x));
      if (opts.max !== undefined && out.length >= opts.max) break;
    }
    return out;
  }

  /** A nested hash (`source[privacy]` or JSON object) as Params. */
  obj(name: string): Params | undefined {
    const v = this.raw[name];
    return isObj(v) ? new Params(v) : undefined;
  }

  /** An indexed hash (`x[0][a]=..`) or an array of objects, as a list of Params in index order. */
  list(name: string): Params[] | undefined {
    const v = this.raw[name];
    if (Array.isArray(v)) return v.filter(isObj).map((o) => new Params(o));
    if (isObj(v)) {
      const keys = Object.keys(v).sort((a, b) => Number(a) - Number(b) || (a < b ? -1 : 1));
      return keys.map((k) => v[k]).filter(isObj).map((o) => new Params(o));
    }
    return undefined;
  }

  /** An uploaded file (multipart only). */
  file(name: string): File | undefined {
    const v = this.raw[name];
    return v instanceof File ? v : undefined;
  }
}

/** readParams with the instance's configured limits. */
export function readAppParams(app: { config: { maxBodyBytes: number; maxMediaBytes: number } }, event: H3Event): Promise<Params> {
  return readParams(event, { json: app.config.maxBodyBytes, multipart: app.config.maxMediaBytes + 1024 * 1024 });
}
