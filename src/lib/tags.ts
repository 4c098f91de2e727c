// Hashtags in post text and their normalised form (protocols/sanitization.md §5).

const W = String.raw`\p{L}\p{M}\p{Nd}\p{Pc}`; // Ruby's [[:word:]]
const A = String.raw`\p{L}\p{M}`; // Ruby's [[:alpha:]]
const SEP = String.raw`_\u00B7\u30FB\u200C`; // `_`, `·`, `・`, ZWNJ

// Mastodon's HASHTAG_NAME_PAT: a name with a separator inside (at least 3 characters, word
// characters at both ends, a letter or separator after the first), or a plain run of word
// characters with at least one letter. Pure numbers never match.
const NAME = `(?:[${W}_][${W}${SEP}]*[${A}${SEP}][${W}${SEP}]*[${W}_])|(?:[${W}_]*[${A}][${W}_]*)`;
const HASHTAG_RE = new RegExp(`(?<=^|\\s)[#＃](${NAME})`, "gu");
const NAME_RE = new RegExp(`^(?:${NAME})$`, "u");

/**
 * Longest tag name the API takes (GET/follow/feature). Mastodon sets none; the bound keeps the
 * name regex and normaliser on short input and refuses names no post could carry (a post has
 * at most 500 characters, its `#` included).
 */
export const MAX_TAG_NAME_LENGTH = 500;

/**
 * Mastodon's Tag::HASHTAG_NAME_RE: a name a post could tag (`#` excluded). No spaces, not only
 * digits, at most MAX_TAG_NAME_LENGTH characters.
 */
export function isValidTagName(name: string): boolean {
  return name.length <= MAX_TAG_NAME_LENGTH && NAME_RE.test(name);
}

export interface HashtagMatch {
  /** Offset of the `#` (UTF-16). */
  start: number;
  end: number;
  /** The name as typed, without `#`. */
  name: string;
}

/** Hashtags in text: a `#` at the start or after whitespace, then a valid name. */
export function extractHashtags(text: string): HashtagMatch[] {
  const out: HashtagMatch[] = [];
  if (!text.includes("#") && !text.includes("＃")) return out;
  for (const m of text.matchAll(HASHTAG_RE)) {
    let name = m[1];
    const end = m.index + 1 + name.length;
    // `#foohttps://…`: the scheme glued to the tag is not part of it.
    if (text.startsWith("://", end)) {
      const cut = /^(.+?)(https?)$/u.exec(name);
      if (cut) name = cut[1];
    }
    out.push({ start: m.index, end: m.index + 1 + name.length, name });
  }
  return out;
}

// Latin letters that do not decompose into a base letter and a combining mark.
const FOLD: Record<string, string> = {
  ß: "ss", æ: "ae", œ: "oe", ø: "o", đ: "d", ð: "d", ħ: "h", ı: "i", ł: "l", þ: "th", ŧ: "t", ŋ: "n", ĸ: "k",
};

function foldLatin(s: string): string {
  let out = "";
  for (const ch of s) {
    const f = FOLD[ch];
    if (f) {
      out += f;
      continue;
    }
    const d = ch.normalize("NFD");
    // Only Latin letters lose their accents: other scripts keep their marks (か + ゙ stays が).
    out += d.length > 1 && /^[a-z]\p{M}+$/u.test(d) ? d[0] : ch;
  }
  return out;
}

const INVALID = new RegExp(`[^\\p{L}\\p{M}\\p{Nd}${SEP}]`, "gu");

/**
 * Mastodon's HashtagNormalizer: NFKC (width folding), lower-case, Latin accents folded to
 * ASCII, then everything but letters, marks, digits and the separators removed.
 * `#Café` → `cafe`, `#ＴＡＧ` → `tag`.
 */
export function normalizeTag(name: string): string {
  return foldLatin(name.normalize("NFKC").toLowerCase()).replace(INVALID, "");
}

/** Mastodon's normalisation of a tag's display name: characters a tag cannot hold removed. */
export function cleanTagDisplayName(name: string): string {
  return name.replace(INVALID, "");
}

/** Unique hashtags of a text in order of appearance: [normalised name, name as first typed]. */
export function uniqueHashtags(text: string): { name: string; display: string }[] {
  const seen = new Map<string, string>();
  for (const h of extractHashtags(text)) {
    const name = normalizeTag(h.name);
    if (name && !seen.has(name)) seen.set(name, h.name);
  }
  return [...seen].map(([name, display]) => ({ name, display }));
}
