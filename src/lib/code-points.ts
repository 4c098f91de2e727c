// Length limits in characters (code points, as Rails counts them) without walking or copying
// the whole string: a request body may carry megabytes in one field.

/** The first half of a surrogate pair (a UTF-16 code unit). */
export const isHigh = (c: number) => c >= 0xd800 && c <= 0xdbff;
/** The second half of a surrogate pair. */
export const isLow = (c: number) => c >= 0xdc00 && c <= 0xdfff;

/** True when `s` has more than `max` code points; reads at most the first 2·max code units. */
export function exceedsCodePoints(s: string, max: number): boolean {
  if (s.length <= max) return false;
  if (s.length > 2 * max) return true; // a code point takes at most two units
  let n = 0;
  for (let i = 0; i < s.length; i++) {
    if (isHigh(s.charCodeAt(i)) && isLow(s.charCodeAt(i + 1))) i++;
    if (++n > max) return true;
  }
  return false;
}

/** The first `max` code points of `s` (a surrogate pair is never split). */
export function clipCodePoints(s: string, max: number): string {
  if (s.length <= max) return s;
  let i = 0;
  for (let n = 0; n < max && i < s.length; n++) i += isHigh(s.charCodeAt(i)) && isLow(s.charCodeAt(i + 1)) ? 2 : 1;
  return s.slice(0, i);
}
