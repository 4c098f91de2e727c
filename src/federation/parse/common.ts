// Reading AP JSON liberally (AP §16 "Generic"): single values or arrays, objects or id
// strings, `Public` in three spellings, `url` as string, Link or array.
import { AS_CONTEXT, AS_PUBLIC, type ApObject } from "../types.ts";
import { clipCodePoints } from "../../lib/code-points.ts";

export const isObject = (v: unknown): v is ApObject => typeof v === "object" && v !== null && !Array.isArray(v);

/** A value or array of values as an array (null/undefined → []). */
export function asArray(v: unknown): unknown[] {
  if (v === undefined || v === null) return [];
  return Array.isArray(v) ? v : [v];
}

/** The id of a reference: the string itself, or the `id` of an embedded object. */
export function idOf(v: unknown): string | undefined {
  if (typeof v === "string") return v;
  if (isObject(v) && typeof v.id === "string") return v.id;
  return undefined;
}

/** Ids of every reference in a value-or-array (`to`, `cc`, `object` lists). */
export function idsOf(v: unknown): string[] {
  return asArray(v)
    .map(idOf)
    .filter((x): x is string => x !== undefined);
}

/** A non-empty string or undefined. */
export function str(v: unknown): string | undefined {
  return typeof v === "string" && v !== "" ? v : undefined;
}

/** `type` as a list (a type may be an array; the first supported one counts). */
export function typesOf(doc: ApObject): string[] {
  return asArray(doc.type).filter((t): t is string => typeof t === "string");
}

export function hasType(doc: ApObject, ...wanted: string[]): boolean {
  return typesOf(doc).some((t) => wanted.includes(t));
}

/** The public collection in any of its spellings. */
export function isPublicAddress(v: string): boolean {
  return v === AS_PUBLIC || v === "as:Public" || v === "Public";
}

/** True when the document's `@context` includes the ActivityStreams context (AP §2). */
export function hasAsContext(doc: ApObject): boolean {
  return asArray(doc["@context"]).some((c) => c === AS_CONTEXT || c === "http://www.w3.org/ns/activitystreams");
}

/** An http(s) URL, or undefined (AP §14: only http/https ids, inboxes, collections, media). */
export function httpUrl(v: unknown): string | undefined {
  if (typeof v !== "string" || v.length > 2048) return undefined;
  try {
    const u = new URL(v);
    return u.protocol === "https:" || u.protocol === "http:" ? u.href : undefined;
  } catch {
    return undefined;
  }
}

/** `host[:port]` of a URL, lower-cased (our notion of an account's or object's domain). */
export function hostOf(url: string): string | undefined {
  try {
    return new URL(url).host.toLowerCase();
  } catch {
    return undefined;
  }
}

/** Same scheme, host and port. */
export function sameOrigin(a: string, b: string): boolean {
  try {
    return new URL(a).origin === new URL(b).origin;
  } catch {
    return false;
  }
}

/**
 * A `url` value as one link: a string, a Link's `href`, or from an array the first
 * `text/html` Link, else the first usable entry.
 */
export function urlOf(v: unknown): string | undefined {
  const items = asArray(v);
  const href = (x: unknown) => (typeof x === "string" ? httpUrl(x) : isObject(x) ? httpUrl(x.href) : undefined);
  const html = items.find((x) => isObject(x) && x.mediaType === "text/html" && href(x));
  if (html) return href(html);
  for (const x of items) {
    const h = href(x);
    if (h) return h;
  }
  return undefined;
}

/** An ISO 8601 date as ms, or undefined. */
export function dateOf(v: unknown): number | undefined {
  if (typeof v !== "string") return undefined;
  const ms = Date.parse(v);
  return Number.isFinite(ms) ? ms : undefined;
}

/** First value of a language map (`contentMap`, `nameMap`), with its language tag. */
export function firstOfMap(v: unknown): { lang: string; value: string } | undefined {
  if (!isObject(v)) return undefined;
  for (const [lang, value] of Object.entries(v)) if (typeof value === "string") return { lang, value };
  return undefined;
}

/** Cuts a string to at most `max` characters (code points). */
export function clip(s: string, max: number): string {
  return clipCodePoints(s, max);
}
