import { domainToASCII } from "node:url";
import { LinkifyIt, type SchemaOpts } from "linkify-it";
import { countGraphemes } from "./graphemes.ts";

// Local plain text → Mastodon's HTML (protocols/sanitization.md §2, conventions.md §10):
// entities (links here; mentions and hashtags through extractors) are found in the raw text,
// the text between them is HTML-escaped, then paragraphs and line breaks are applied.

/** A piece of the raw text replaced by ready-made HTML. Offsets are UTF-16 indexes. */
export interface TextEntity {
  start: number;
  end: number;
  html: string;
}
/** Finds entities in the raw text (e.g. mentions, hashtags); overlaps are resolved by position. */
export type EntityExtractor = (text: string) => TextEntity[];

export interface FormatOptions {
  /** Paragraphs and `<br />` (posts and bios). Profile field values use false. Default true. */
  multiline?: boolean;
  /** Links get `rel="nofollow noopener me"` (profile fields, for rel=me verification). */
  relMe?: boolean;
  /** Extra entity finders: mentions, hashtags... Links are always found. */
  extractors?: EntityExtractor[];
}

export interface UrlMatch {
  start: number;
  end: number;
  url: string;
  /** http(s) and the other web schemes count 23 characters; xmpp:/magnet: count literally. */
  web: boolean;
}

const ESCAPES: Record<string, string> = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" };
export function escapeHtml(s: string): string {
  return s.replace(/[&<>"']/g, (c) => ESCAPES[c]);
}

const WEB_SCHEMES = ["http:", "https:", "dat:", "dweb:", "ipfs:", "ipns:", "ssb:", "gopher:", "gemini:"];

function regexSchema(re: RegExp): SchemaOpts {
  return {
    validate(text, pos) {
      re.lastIndex = pos;
      const m = re.exec(text);
      return m ? m[0].length : 0;
    },
  };
}

function createLinkify(): LinkifyIt {
  // Mastodon links only URLs with an explicit scheme: no bare domains, no e-mail addresses.
  const l = new LinkifyIt({ fuzzyLink: false, fuzzyEmail: false, fuzzyIP: false });
  l.add("ftp:", null).add("//", null).add("mailto:", null);
  const web: SchemaOpts = {
    validate(text, pos, self) {
      const re = self.re.get_http_validator();
      re.lastIndex = pos;
      const m = re.exec(text);
      return m ? m[0].length : 0;
    },
  };
  for (const s of WEB_SCHEMES.slice(2)) l.add(s, web);
  // A JID's parts are at most 1 023 bytes (RFC 7622). Bounded, a failed match costs little:
  // linkify tries this at every "xmpp:", and unbounded runs made "xmpp:xmpp:…" quadratic.
  l.add("xmpp:", regexSchema(/(?:\/\/[^\s/?#]{1,1023}\/)?[^\s@/?#<>"]{1,1023}@[^\s/?#<>"]{1,1023}(?:\/[^\s?<>"]{0,1023})?(?:\?[^\s<>"]*)?/uy));
  l.add("magnet:", regexSchema(/\?[^\s<>"]+/uy));
  return l;
}

let linkify: LinkifyIt | undefined; // stateless matcher: safe to share between apps
const matcher = () => (linkify ??= createLinkify());

// A URL path must not end with these (Mastodon's twitter-text overrides); ")" is kept when balanced.
const BAD_ENDINGS = new Set([..."()?!*\"'「」<>;:=,.$%[]~&|"]);

function trimEnding(url: string): string {
  let opens = 0;
  let closes = 0;
  for (const c of url) {
    if (c === "(") opens++;
    else if (c === ")") closes++;
  }
  let end = url.length;
  while (end > 0) {
    const last = url[end - 1];
    if (last === ")") {
      if (closes <= opens) break;
      closes--;
    } else if (!BAD_ENDINGS.has(last)) break;
    else if (last === "(") opens--;
    end--;
  }
  return url.slice(0, end);
}

// twitter-text's Extractor::MAX_URL_LENGTH: a longer URL is neither linked nor counted as one.
// Its length is in code points, with the host as long as its ASCII (punycode) form.
const MAX_URL_LENGTH = 4096;

function urlTooLong(url: string): boolean {
  if (url.length <= MAX_URL_LENGTH / 2) return false;
  let n = 0;
  for (const _ of url) n++;
  const host = /^[a-z][a-z0-9+.-]*:\/\/(?:[^/?#\s@]*@)?([^/?#\s:]+)/i.exec(url)?.[1];
  if (host) n += Math.max(0, (domainToASCII(host) || host).length - host.length);
  return n > MAX_URL_LENGTH;
}

// Mastodon requires a real top-level domain: localhost and bare IPs are not linked.
function hostHasTld(url: string): boolean {
  const m = /^[a-z][a-z0-9+.-]*:\/\/([^/?#\s]+)/i.exec(url);
  if (!m) return true; // schemes without an authority (ssb:, magnet:)
  const host = m[1].replace(/^[^@]*@/, "").replace(/:\d*$/, "").toLowerCase();
  if (host.startsWith("[")) return false;
  const labels = host.split(".");
  if (labels.length < 2) return false;
  const tld = labels[labels.length - 1];
  return tld.startsWith("xn--") || /^\p{L}{2,}$/u.test(tld);
}

/** URLs in plain text, Mastodon's way (scheme required, trailing punctuation left out). */
export function extractUrls(text: string): UrlMatch[] {
  const l = matcher();
  if (!text || !l.test(text)) return [];
  const out: UrlMatch[] = [];
  for (const m of l.match(text) ?? []) {
    const before = m.index > 0 ? text[m.index - 1] : "";
    if (before === "@" || before === "$" || before === "#") continue;
    const url = trimEnding(m.raw);
    if (url.length <= m.schema.length || !hostHasTld(url) || urlTooLong(url)) continue;
    out.push({ start: m.index, end: m.index + url.length, url, web: WEB_SCHEMES.includes(m.schema) });
  }
  return out;
}

const PREFIX_RE = /^(https?:\/\/(www\.)?|xmpp:)/;

/** Mastodon's shortened link: scheme hidden, 30 visible characters, the rest hidden. */
export function linkHtml(url: string, opts: { relMe?: boolean } = {}): string {
  const prefix = PREFIX_RE.exec(url)?.[0] ?? "";
  const rest = Array.from(url.slice(prefix.length));
  // Exactly one leftover character is shown rather than hidden behind an ellipsis.
  const cut = rest.length > 31;
  const shown = cut ? rest.slice(0, 30).join("") : rest.join("");
  const hidden = cut ? rest.slice(30).join("") : "";
  const rel = opts.relMe ? "nofollow noopener me" : "nofollow noopener";
  return (
    `<a href="${escapeHtml(url)}" target="_blank" rel="${rel}" translate="no">` +
    `<span class="invisible">${escapeHtml(prefix)}</span>` +
    `<span class="${cut ? "ellipsis" : ""}">${escapeHtml(shown)}</span>` +
    `<span class="invisible">${escapeHtml(hidden)}</span></a>`
  );
}

/** Sorted by start; an entity starting before the previous kept one ends is dropped. */
function resolveOverlaps(entities: TextEntity[]): TextEntity[] {
  const sorted = [...entities].sort((a, b) => a.start - b.start || b.end - a.end);
  const out: TextEntity[] = [];
  let end = 0;
  for (const e of sorted) {
    if (e.start < end || e.end <= e.start) continue;
    out.push(e);
    end = e.end;
  }
  return out;
}

function paragraphs(html: string): string {
  return html
    .split(/\n{2,}/)
    .map((p) => `<p>${p.replace(/\n/g, "<br />")}</p>`)
    .join("");
}

/** Renders local plain text (a bio, a field value, later a post) as Mastodon's HTML. */
export function formatPlainText(text: string, opts: FormatOptions = {}): string {
  const multiline = opts.multiline !== false;
  let src = text.replace(/\r\n?/g, "\n");
  if (multiline) src = src.trim();
  if (src === "") return "";
  const entities: TextEntity[] = extractUrls(src).map((u) => ({
    start: u.start,
    end: u.end,
    html: linkHtml(u.url, { relMe: opts.relMe }),
  }));
  for (const extract of opts.extractors ?? []) entities.push(...extract(src));
  let html = "";
  let pos = 0;
  for (const e of resolveOverlaps(entities)) {
    html += escapeHtml(src.slice(pos, e.start)) + e.html;
    pos = e.end;
  }
  html += escapeHtml(src.slice(pos));
  return multiline ? paragraphs(html) : html;
}

// Mastodon's Account::MENTION_RE: not after a word character, "=" or "/". Roost also takes a
// port on the domain (`@bob@127.0.0.1:4001`): instances on a non-default port (local set-ups,
// tests) have handles with one.
const MENTION_RE =
  /(?<![=/\p{L}\p{M}\p{N}\p{Pc}])@([a-z0-9_]+(?:[.-]+[a-z0-9_]+)*)(?:@([\p{L}\p{M}\p{N}\p{Pc}]+(?:[.-]+[\p{L}\p{M}\p{N}\p{Pc}]+)*(?::\d{1,5}(?!\d))?))?/giu;

// Mastodon's Extractor::MAX_DOMAIN_LENGTH: `@user@<longer domain>` is not a mention.
const MAX_DOMAIN_LENGTH = 253;

export interface MentionMatch {
  start: number;
  end: number;
  username: string;
  /** As written (lower-cased), or null for `@user`. */
  domain: string | null;
}

/** `@user` and `@user@domain` in plain text (resolution is the caller's business). */
export function extractMentions(text: string): MentionMatch[] {
  const out: MentionMatch[] = [];
  for (const m of text.matchAll(MENTION_RE)) {
    const after = text.slice(m.index + m[0].length, m.index + m[0].length + 3);
    // Followed by another "@", an accented Latin letter or "://": not a mention.
    if (/^[@＠\u00C0-\u024F]/u.test(after) || after.startsWith("://")) continue;
    if (m[2] !== undefined && m[2].length > MAX_DOMAIN_LENGTH) continue;
    out.push({ start: m.index, end: m.index + m[0].length, username: m[1], domain: m[2]?.toLowerCase() ?? null });
  }
  return out;
}

const URL_WEIGHT = 23;

/**
 * Most code units one counted character can stand for: a URL of MAX_URL_LENGTH counts 23, a
 * mention drops at most its domain. A text longer than its limit times this cannot fit it
 * (short of clusters averaging more code units than this, which are refused too), so it can
 * be refused on its raw length before any work.
 */
export const MAX_UNITS_PER_CHAR = Math.ceil(MAX_URL_LENGTH / URL_WEIGHT);

/** The text Mastodon's StatusLengthValidator counts: every web URL as 23 x's, `@user@domain` as `@user`. */
export function countableText(text: string): string {
  let countable = "";
  let pos = 0;
  for (const u of extractUrls(text)) {
    if (!u.web) continue;
    countable += text.slice(pos, u.start) + "x".repeat(URL_WEIGHT);
    pos = u.end;
  }
  countable += text.slice(pos);
  let out = "";
  pos = 0;
  for (const m of extractMentions(countable)) {
    out += countable.slice(pos, m.start) + "@" + m.username;
    pos = m.end;
  }
  return out + countable.slice(pos);
}

/**
 * Length as Mastodon counts it for the 500-character limits: grapheme clusters, every web URL
 * counts 23, `@user@domain` counts as `@user`. With `stopAfter`, counting stops once the
 * count exceeds it (see countGraphemes).
 */
export function countTextLength(text: string, stopAfter = Infinity): number {
  return countGraphemes(countableText(text), stopAfter);
}

/** True when `text` counts more than `max` characters; linear, and instant for texts far too long. */
export function exceedsTextLimit(text: string, max: number): boolean {
  if (text.length > max * MAX_UNITS_PER_CHAR) return true;
  return countTextLength(text, max) > max;
}
