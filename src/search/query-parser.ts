// Mastodon's search syntax (app/lib/search_query_parser.rb, 4.2+): clauses separated by
// whitespace, each an optional `+` or `-`, an optional `prefix:` among the supported operators,
// then a quoted phrase or a run of non-space characters. Every input parses: an unknown prefix
// (`foo:bar`), an operator without a value (`from:`) or an unbalanced quote is part of a plain
// term, as in Mastodon, whose grammar falls back to its `term` rule in those cases.

export const SEARCH_PREFIXES = ["has", "is", "language", "from", "before", "after", "during", "in"] as const;
export type SearchPrefix = (typeof SEARCH_PREFIXES)[number];

export interface SearchClause {
  op: "+" | "-" | null;
  prefix: SearchPrefix | null;
  /** The term as written, or the phrase's text without its quotes. */
  value: string;
  phrase: boolean;
}

/**
 * Clauses past this many are ignored: a 10,000-character query stays a bounded amount of work
 * (Elasticsearch has a clause limit of its own).
 */
export const MAX_CLAUSES = 64;
/** A term or phrase is cut to this many characters. */
export const MAX_CLAUSE_CHARS = 512;

// Mastodon's SearchService turns the quote marks of other scripts into `"` before parsing.
const QUOTE_EQUIVALENTS = /[“”„«»「」『』《》]/g;
const SPACE = /\s/;

function readValue(s: string, i: number): { value: string; phrase: boolean; end: number } | undefined {
  if (s[i] === '"') {
    const close = s.indexOf('"', i + 1);
    if (close !== -1) return { value: s.slice(i + 1, close), phrase: true, end: close + 1 };
  }
  let j = i;
  while (j < s.length && !SPACE.test(s[j])) j++;
  return j === i ? undefined : { value: s.slice(i, j), phrase: false, end: j };
}

function readBody(s: string, i: number): { prefix: SearchPrefix | null; value: string; phrase: boolean; end: number } | undefined {
  // Prefixes are matched as written (lower case), as Mastodon's parser does: `FROM:x` is a term.
  const prefix = SEARCH_PREFIXES.find((p) => s.startsWith(p, i) && s[i + p.length] === ":");
  if (prefix) {
    const v = readValue(s, i + prefix.length + 1);
    if (v) return { prefix, ...v };
  }
  const v = readValue(s, i);
  return v && { prefix: null, ...v };
}

/** The clauses of a query, in order; at most MAX_CLAUSES. */
export function parseSearchQuery(q: string): SearchClause[] {
  const s = q.replace(QUOTE_EQUIVALENTS, '"');
  const out: SearchClause[] = [];
  let i = 0;
  while (out.length < MAX_CLAUSES) {
    while (i < s.length && SPACE.test(s[i])) i++;
    if (i >= s.length) break;
    const c = s[i];
    // An operator binds only when a value follows it; otherwise it is the term's first character.
    const withOp = c === "+" || c === "-" ? readBody(s, i + 1) : undefined;
    const body = withOp ?? readBody(s, i)!;
    out.push({ op: withOp ? (c as "+" | "-") : null, prefix: body.prefix, value: body.value.slice(0, MAX_CLAUSE_CHARS), phrase: body.phrase });
    i = body.end;
  }
  return out;
}
