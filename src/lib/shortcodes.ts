// CustomEmoji::SCAN_RE: `:shortcode:` not glued to letters, digits or another colon.
const SHORTCODE_RE = /(?<![\p{L}\p{N}:]):([a-zA-Z0-9_]{2,}):(?![\p{L}\p{N}:])/gu;

/**
 * Appends the `:shortcode:`s of `text` to `out`, in order, repeats kept. Texts without two
 * colons (most of them) skip the regex. The shared regex is safe: exec runs to the end
 * synchronously, which resets lastIndex (matchAll would clone the regex on every call).
 */
export function scanShortcodes(text: string, out: string[]): string[] {
  const first = text.indexOf(":");
  if (first < 0 || text.indexOf(":", first + 1) < 0) return out;
  SHORTCODE_RE.lastIndex = 0;
  for (let m = SHORTCODE_RE.exec(text); m; m = SHORTCODE_RE.exec(text)) out.push(m[1]);
  return out;
}
