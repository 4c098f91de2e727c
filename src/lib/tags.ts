// Hashtags in post text and their normalised form (protocols/sanitization.md §5).
import { isHigh, isLow } from "./code-points.ts";

const W = String.raw`\p{L}\p{M}\p{Nd}\p{Pc}`; // Ruby's [[:word:]]
const A = String.raw`\p{L}\p{M}`; // Ruby's [[:alpha:]]
const SEP = String.raw`_\u00B7\u30FB\u200C`; // `_`, `·`, `・`, ZWNJ

// Mastodon's HASHTAG_NAME_PAT is
//   [W_][W SEP]*[A SEP][W SEP]*[W_]  |  [W_]*[A][W_]*
// (W: word characters, A: letters and marks, SEP: the separators): a name with a separator
// inside (at least 3 characters, word characters at both ends, a letter or separator after the
// first), or a plain run of word characters with at least one letter. Pure numbers never match.
// As a backtracking regex it takes time quadratic in the length of the run after "#" (a letter
// followed by a long run of "·"), so nameEnd() finds the same match with linear scans:
// - the first alternative can only match inside the run of W and SEP characters after "#"; it
//   needs a word character first, and then matches up to the run's last word character as
//   long as a letter, mark or separator comes between those two;
// - otherwise the second one matches the run of word characters if it holds a letter or mark.
const WS_RUN = new RegExp(`[${W}${SEP}]*`, "uy");
const W_RUN = new RegExp(`[${W}]*`, "uy");
const UNTIL_A_OR_SEP = new RegExp(`[^${A}${SEP}]*`, "uy");
const UNTIL_A = new RegExp(`[^${A}]*`, "uy");
/** Separators that are not word characters (`_` is one). */
const SEP_ONLY = new Set([0x00b7, 0x30fb, 0x200c]);

/** Where a sticky `[...]*` regex stops matching from `from`. */
function scan(re: RegExp, s: string, from: number): number {
  re.lastIndex = from;
  re.exec(s);
  return re.lastIndex;
}

/** End of the hashtag name starting at `start` (just after the "#"), or -1. */
function nameEnd(text: string, start: number): number {
  const run = text.slice(start, scan(WS_RUN, text, start));
  const words = scan(W_RUN, run, 0);
  if (words === 0) return -1;
  let end = run.length; // past the last word character
  while (end > 0 && SEP_ONLY.has(run.charCodeAt(end - 1))) end--;
  const lastWord = end - (end >= 2 && isLow(run.charCodeAt(end - 1)) && isHigh(run.charCodeAt(end - 2)) ? 2 : 1);
  const second = isHigh(run.charCodeAt(0)) && isLow(run.charCodeAt(1)) ? 2 : 1;
  if (scan(UNTIL_A_OR_SEP, run, second) < lastWord) return start + end;
  return scan(UNTIL_A, run, 0) < words ? start + words : -1;
}

const WHITESPACE = /\s/u;

/**
 * Longest tag name the API takes (GET/follow/feature). Mastodon sets none; the bound keeps the
 * normaliser on short input and refuses names no post could carry (a post has at most 500
 * characters, its `#` included).
 */
export const MAX_TAG_NAME_LENGTH = 500;

/**
 * Mastodon's Tag::HASHTAG_NAME_RE: a name a post could tag (`#` excluded). No spaces, not only
 * digits, at most MAX_TAG_NAME_LENGTH characters.
 */
export function isValidTagName(name: string): boolean {
  return name.length > 0 && name.length <= MAX_TAG_NAME_LENGTH && nameEnd(name, 0) === name.length;
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
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c !== "#" && c !== "＃") continue;
    if (i > 0 && !WHITESPACE.test(text[i - 1])) continue;
    const end = nameEnd(text, i + 1);
    if (end < 0) continue;
    let name = text.slice(i + 1, end);
    // `#foohttps://…`: the scheme glued to the tag is not part of it.
    if (text.startsWith("://", end)) {
      const cut = /^(.+?)(https?)$/u.exec(name);
      if (cut) name = cut[1];
    }
    out.push({ start: i, end: i + 1 + name.length, name });
    i = end - 1;
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
