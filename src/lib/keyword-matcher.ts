// Keyword matching for filters, as Mastodon matches them: each keyword is its
// CustomFilterKeyword#to_regex (the escaped text, case-insensitive; a whole_word keyword gets a
// word boundary on each end that is a word character) and a filter's keywords are one
// Regexp.union, of which the first match counts: the leftmost, and at the same start the
// keyword listed first.
//
// Instead of one regex per filter (a backtracking engine tries every alternative at every
// position: keywords × text), every keyword of every filter goes into one Aho–Corasick
// automaton, built once per user: a single pass over the text finds them all, in time linear in
// the text (plus the matches) whatever the number of keywords.

/** One keyword of one filter (`filter` is the caller's filter index, from 0). */
export interface MatcherKeyword {
  filter: number;
  keyword: string;
  wholeWord: boolean;
}

/** A filter's first match: the text as the status has it (Mastodon's `match.to_s`). */
export interface KeywordHit {
  filter: number;
  text: string;
}

const NEED_START = 1;
const NEED_END = 2;

/** Unicode word characters, Onigmo's [[:word:]]: letters, marks, decimal digits, connectors. */
const WORD_RE = /[\p{L}\p{M}\p{Nd}\p{Pc}]/u;

function isWordCode(cp: number): boolean {
  if (cp < 128) return (cp >= 48 && cp <= 57) || (cp >= 65 && cp <= 90) || (cp >= 97 && cp <= 122) || cp === 95;
  return WORD_RE.test(String.fromCodePoint(cp));
}

/** Whether the character just before `at` is a word character (false at the start). */
function wordBefore(text: string, at: number): boolean {
  if (at <= 0) return false;
  const low = text.charCodeAt(at - 1);
  if (low >= 0xdc00 && low <= 0xdfff && at >= 2) {
    const cp = text.codePointAt(at - 2)!;
    if (cp > 0xffff) return isWordCode(cp);
  }
  return isWordCode(low);
}

/** Whether the character at `at` is a word character (false at the end). */
function wordAt(text: string, at: number): boolean {
  return at < text.length && isWordCode(text.codePointAt(at)!);
}

/**
 * Case folding that keeps every character at its index, so a match in the folded text is the
 * same span of the original. toLowerCase keeps the length of every character but U+0130 (İ,
 * which gains a combining dot): a string holding it is folded character by character, İ kept.
 * Final sigma folds like sigma, as Ruby's /i does.
 */
export function foldCase(s: string): string {
  let out = s.toLowerCase();
  if (out.length !== s.length) {
    out = "";
    for (const ch of s) {
      const lower = ch.toLowerCase();
      out += lower.length === ch.length ? lower : ch;
    }
  }
  return out.includes("ς") ? out.replaceAll("ς", "σ") : out;
}

function firstCodePoint(s: string): number {
  return s.codePointAt(0)!;
}

function lastCodePoint(s: string): number {
  const low = s.charCodeAt(s.length - 1);
  if (low >= 0xdc00 && low <= 0xdfff && s.length >= 2) {
    const cp = s.codePointAt(s.length - 2)!;
    if (cp > 0xffff) return cp;
  }
  return low;
}

/**
 * The compiled keywords of one user's filters. Immutable once built; `firstMatches` may run on
 * any number of texts. Memory is a few typed arrays over the trie (at most one node per keyword
 * character).
 */
export class KeywordMatcher {
  private constructor(
    private readonly filterCount: number,
    // Characters are first mapped to classes: one per distinct character of the keywords,
    // 0 for every other (which always leads back to the root, with no lookup).
    private readonly asciiClass: Int32Array,
    private readonly otherClass: Map<number, number>,
    // The root's transition for each class (0: stay at the root).
    private readonly rootNext: Int32Array,
    // Trie edges, per node a range of edgeStart[node]..edgeStart[node + 1], sorted by class.
    private readonly edgeStart: Int32Array,
    private readonly edgeClass: Int32Array,
    private readonly edgeNext: Int32Array,
    private readonly fail: Int32Array,
    // The nearest node on the failure chain (itself included) that ends a keyword, or -1.
    private readonly firstOutput: Int32Array,
    // The next node after this one on the failure chain that ends a keyword, or -1.
    private readonly nextOutput: Int32Array,
    // Keywords ending at a node: patStart[node]..patStart[node + 1] into the pat* arrays.
    private readonly patStart: Int32Array,
    private readonly patFilter: Int32Array,
    private readonly patOrder: Int32Array,
    private readonly patLength: Int32Array,
    private readonly patFlags: Uint8Array,
  ) {}

  /** Builds the automaton; `filterCount` bounds the filter indexes of `keywords`. */
  static compile(keywords: MatcherKeyword[], filterCount: number): KeywordMatcher {
    const asciiClass = new Int32Array(128);
    const otherClass = new Map<number, number>();
    let classes = 0;
    const classOf = (c: number): number => {
      let cls = c < 128 ? asciiClass[c] : (otherClass.get(c) ?? 0);
      if (cls === 0) {
        cls = ++classes;
        if (c < 128) asciiClass[c] = cls;
        else otherClass.set(c, cls);
      }
      return cls;
    };
    const children: Map<number, number>[] = [new Map()];
    const ending: number[][] = [[]];
    keywords.forEach((k, order) => {
      const folded = foldCase(k.keyword);
      if (folded.length === 0) return;
      let node = 0;
      for (let i = 0; i < folded.length; i++) {
        const c = classOf(folded.charCodeAt(i));
        let next = children[node].get(c);
        if (next === undefined) {
          next = children.length;
          children.push(new Map());
          ending.push([]);
          children[node].set(c, next);
        }
        node = next;
      }
      ending[node].push(order);
    });

    const nodes = children.length;
    const fail = new Int32Array(nodes);
    const firstOutput = new Int32Array(nodes).fill(-1);
    const nextOutput = new Int32Array(nodes).fill(-1);
    // Breadth first: a node's failure target is shallower, so it is complete when needed.
    const queue: number[] = [];
    for (const child of children[0].values()) queue.push(child);
    for (let head = 0; head < queue.length; head++) {
      const u = queue[head];
      const chain = firstOutput[fail[u]];
      nextOutput[u] = chain;
      firstOutput[u] = ending[u].length > 0 ? u : chain;
      for (const [c, v] of children[u]) {
        let f = fail[u];
        while (f !== 0 && !children[f].has(c)) f = fail[f];
        const target = children[f].get(c);
        fail[v] = target !== undefined && target !== v ? target : 0;
        queue.push(v);
      }
    }

    const edgeStart = new Int32Array(nodes + 1);
    let edges = 0;
    for (let n = 0; n < nodes; n++) {
      edgeStart[n] = edges;
      edges += children[n].size;
    }
    edgeStart[nodes] = edges;
    const edgeClass = new Int32Array(edges);
    const edgeNext = new Int32Array(edges);
    for (let n = 0; n < nodes; n++) {
      const sorted = [...children[n]].sort((a, b) => a[0] - b[0]);
      sorted.forEach(([c, next], i) => {
        edgeClass[edgeStart[n] + i] = c;
        edgeNext[edgeStart[n] + i] = next;
      });
    }
    const rootNext = new Int32Array(classes + 1);
    for (const [c, next] of children[0]) rootNext[c] = next;

    const patStart = new Int32Array(nodes + 1);
    let pats = 0;
    for (let n = 0; n < nodes; n++) {
      patStart[n] = pats;
      pats += ending[n].length;
    }
    patStart[nodes] = pats;
    const patFilter = new Int32Array(pats);
    const patOrder = new Int32Array(pats);
    const patLength = new Int32Array(pats);
    const patFlags = new Uint8Array(pats);
    for (let n = 0; n < nodes; n++) {
      ending[n].forEach((order, i) => {
        const k = keywords[order];
        const at = patStart[n] + i;
        patFilter[at] = k.filter;
        patOrder[at] = order;
        patLength[at] = k.keyword.length;
        // Ruby's to_regex_sb/eb: a boundary only on an end that is a word character.
        patFlags[at] = k.wholeWord
          ? (isWordCode(firstCodePoint(k.keyword)) ? NEED_START : 0) | (isWordCode(lastCodePoint(k.keyword)) ? NEED_END : 0)
          : 0;
      });
    }
    return new KeywordMatcher(
      filterCount,
      asciiClass,
      otherClass,
      rootNext,
      edgeStart,
      edgeClass,
      edgeNext,
      fail,
      firstOutput,
      nextOutput,
      patStart,
      patFilter,
      patOrder,
      patLength,
      patFlags,
    );
  }

  private child(node: number, cls: number): number {
    let lo = this.edgeStart[node];
    let hi = this.edgeStart[node + 1] - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >>> 1;
      const m = this.edgeClass[mid];
      if (m === cls) return this.edgeNext[mid];
      if (m < cls) lo = mid + 1;
      else hi = mid - 1;
    }
    return -1;
  }

  /**
   * Each filter's first match in `text`, in filter order. `folded` is foldCase(text), which
   * callers may keep between calls. A text without a match costs one pass and no allocation.
   */
  firstMatches(text: string, folded = foldCase(text)): KeywordHit[] {
    // Per filter: start, end and keyword order of its best match so far (made on the first hit).
    let best: Int32Array | null = null;
    let state = 0;
    for (let i = 0; i < folded.length; i++) {
      const c = folded.charCodeAt(i);
      const cls = c < 128 ? this.asciiClass[c] : (this.otherClass.get(c) ?? 0);
      if (cls === 0) {
        state = 0;
        continue;
      }
      for (;;) {
        if (state === 0) {
          state = this.rootNext[cls];
          break;
        }
        const next = this.child(state, cls);
        if (next >= 0) {
          state = next;
          break;
        }
        state = this.fail[state];
      }
      for (let node = this.firstOutput[state]; node >= 0; node = this.nextOutput[node]) {
        for (let p = this.patStart[node]; p < this.patStart[node + 1]; p++) {
          const at = this.patFilter[p] * 3;
          const end = i + 1;
          const start = end - this.patLength[p];
          const order = this.patOrder[p];
          if (best === null) best = new Int32Array(this.filterCount * 3).fill(-1);
          const prev = best[at];
          if (prev >= 0 && (prev < start || (prev === start && best[at + 2] < order))) continue;
          const flags = this.patFlags[p];
          if (flags & NEED_START && wordBefore(text, start)) continue;
          if (flags & NEED_END && wordAt(text, end)) continue;
          best[at] = start;
          best[at + 1] = end;
          best[at + 2] = order;
        }
      }
    }
    if (best === null) return [];
    const out: KeywordHit[] = [];
    for (let f = 0; f < this.filterCount; f++) {
      if (best[f * 3] >= 0) out.push({ filter: f, text: text.slice(best[f * 3], best[f * 3 + 1]) });
    }
    return out;
  }
}
