// The words of the status index's `meta` column (migrations/0033_status_search.sql). Each starts
// and ends with `_`, a word character for the index's tokenizer, so the tokenizer keeps it as one
// word and its stemmer (which only strips suffixes such as `-s` and `-ing`) never changes it.
// Anything that is not a letter or digit is written as `_<hex>_` and each kind of word has its
// own first letter, so two different values never share a word. They are only ever matched in
// the `meta` column: a post's text may hold the same characters without counting as any of them.

/** Characters written as they are: letters and digits (the tokenizer folds case and accents). */
const PLAIN = /[\p{L}\p{N}]/u;

function encode(s: string): string {
  let out = "";
  for (const c of s) out += PLAIN.test(c) ? c : `_${c.codePointAt(0)!.toString(16)}_`;
  return out;
}

/** A public post of an author who opted in (`indexable`): anyone may find it. */
export const PUBLIC_WORD = "_scope_public_";
/** In the library of a local account (Mastodon's searchable_by). */
export const libraryWord = (accountId: string) => `_by${accountId}_`;
export const authorWord = (accountId: string) => `_f${accountId}_`;
/** A remote author's domain (lower case). */
export const domainWord = (domain: string) => `_d${encode(domain.toLowerCase())}_`;
/** Mastodon's searchable_properties: media, image, video, audio, poll, link, embed, sensitive, reply. */
export const propertyWord = (property: string) => `_p${encode(property)}_`;
export const languageWord = (code: string) => `_l${encode(code.toLowerCase())}_`;
/** A hashtag, by its normalised name (lib/tags.ts normalizeTag). */
export const tagWord = (name: string) => `_t${encode(name)}_`;

export const STATUS_PROPERTIES = ["media", "image", "video", "audio", "poll", "link", "embed", "sensitive", "reply"] as const;
export type StatusProperty = (typeof STATUS_PROPERTIES)[number];

/** A string as an FTS5 query string: quoted, its quotes doubled (never query syntax). */
export const ftsString = (s: string) => `"${s.replace(/"/g, '""')}"`;

/**
 * True when the index's tokenizer finds a word in `s` (unicode61: letters, digits, private-use
 * characters; `_` added): a string without one is no query at all.
 */
export const hasWord = (s: string) => /[\p{L}\p{N}\p{Co}_]/u.test(s);
