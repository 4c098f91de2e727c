// Whether a string is one unicode emoji (Mastodon's ReactionValidator checks reaction names
// against the emoji its web client knows). V8's own Unicode data decides, with the `v` flag's
// RGI_Emoji property: every emoji a keyboard offers, skin tones, ZWJ sequences, flags and
// keycaps included. A pictograph without its U+FE0F presentation selector (❤ for ❤️) counts
// too: clients send either. Built with `new RegExp` since TypeScript's ES2023 target does not
// know the flag; Node 20 does.

const RGI_EMOJI = new RegExp("^\\p{RGI_Emoji}$", "v");
const BARE_PICTOGRAPH = /^\p{Extended_Pictographic}\uFE0F?$/u;

/** Longest RGI sequence (a family with skin tones) is 35 UTF-16 units; more is never one emoji. */
const MAX_LENGTH = 64;

export function isUnicodeEmoji(s: string): boolean {
  if (s.length === 0 || s.length > MAX_LENGTH) return false;
  return RGI_EMOJI.test(s) || BARE_PICTOGRAPH.test(s);
}
