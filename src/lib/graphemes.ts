// Counting extended grapheme clusters (what Mastodon's limits count) in linear time.
//
// Node 20's Intl.Segmenter slows down with the length of the string it segments: every step
// costs more the further into the string it is (a 40 000-character run takes ~0.5 s, a 1 MB
// one minutes). Segmenting short pieces keeps each step cheap. A piece starts where a cluster
// starts and never ends inside a surrogate pair. Its last cluster may go on in the next piece,
// so it is not counted; the next piece starts where it starts instead. Every other boundary in
// a piece is a true one: whether two characters are split depends only on them and on what
// precedes them since the last boundary (the pairing of flags, an emoji ZWJ sequence).
import { isHigh, isLow } from "./code-points.ts";

/** Code units segmented at a time; a cluster longer than this makes the piece grow. */
const PIECE = 256;

let segmenter: Intl.Segmenter | undefined;

// Printable ASCII, tab and line feed: in a run of them, each one is a cluster of its own (no
// rule joins two of them), so runs are counted without segmenting. A run is only taken from
// where a cluster starts, and its last character may be joined by what follows (a combining
// accent): that one is left to the segmenter. Carriage return is left out: CR LF is one cluster.
function simpleRunEnd(text: string, from: number): number {
  let i = from;
  while (i < text.length) {
    const c = text.charCodeAt(i);
    if ((c < 0x20 || c > 0x7e) && c !== 0x0a && c !== 0x09) break;
    i++;
  }
  return i;
}

/**
 * Grapheme clusters in `text`. With `stopAfter`, counting ends as soon as the count exceeds
 * it (the result is then some number above `stopAfter`): enough to enforce a limit.
 * `piece` is for tests (small pieces exercise the boundaries).
 */
export function countGraphemes(text: string, stopAfter = Infinity, piece = PIECE): number {
  segmenter ??= new Intl.Segmenter(undefined, { granularity: "grapheme" });
  const len = text.length;
  let n = 0;
  let pos = 0; // always the start of a cluster
  while (pos < len && n <= stopAfter) {
    const run = simpleRunEnd(text, pos);
    if (run === len) return n + (run - pos);
    if (run - pos > 1) {
      n += run - 1 - pos;
      pos = run - 1;
    }
    let size = piece;
    for (;;) {
      let end = Math.min(len, pos + size);
      // A piece ends between code points: half a pair would change the boundary before it.
      if (end < len && isHigh(text.charCodeAt(end - 1)) && isLow(text.charCodeAt(end))) end++;
      const last = end === len;
      let consumed = 0;
      for (const { index, segment } of segmenter.segment(text.slice(pos, end))) {
        const segEnd = index + segment.length;
        if (!last && segEnd === end - pos) break;
        n++;
        consumed = segEnd;
      }
      if (consumed > 0 || last) {
        pos += last ? end - pos : consumed;
        break;
      }
      size *= 2; // one cluster fills the whole piece: look further
    }
  }
  return n;
}
