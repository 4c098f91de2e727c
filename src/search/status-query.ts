// Turns parsed clauses into a query on the status index, with Mastodon's semantics
// (app/lib/search_query_transformer.rb): words and phrases must all match, `-` excludes them;
// `from:`, `has:`/`is:`, `language:` filter (negated with `-`); `before:`/`after:`/`during:`
// bound the date; `in:library` / `in:public` pick the part of the index searched. Every word a
// user typed reaches FTS5 as a quoted string, never as query syntax.
import { unprocessable } from "../errors.ts";
import type { Id } from "../lib/ids.ts";
import { normalizeTag } from "../lib/tags.ts";
import type { SearchClause } from "./query-parser.ts";
import {
  authorWord,
  ftsString,
  hasWord,
  languageWord,
  libraryWord,
  propertyWord,
  PUBLIC_WORD,
  STATUS_PROPERTIES,
  tagWord,
} from "./tokens.ts";

export type SearchScope = "all" | "library" | "public";

/** A half-open range of status ids: [from, to). */
export interface IdRange {
  from: bigint;
  to: bigint;
}

export interface StatusQuery {
  /** FTS5 expressions that must all match (each one column-filtered). */
  must: string[];
  /** FTS5 expressions none of which may match. */
  mustNot: string[];
  scope: SearchScope;
  /** Status ids searched: [from, to). Ids are time-ordered, so dates are id ranges. */
  range: IdRange;
  /** Id ranges left out (`-during:`). */
  excluded: IdRange[];
  /** A filter no status can pass (`from:` an unknown account): the answer is empty. */
  impossible: boolean;
  /** False when the query asks for nothing at all (no words, no filters). */
  constrained: boolean;
}

export interface QueryContext {
  viewerId: Id;
  /** `from:` value → account id, or null when no such account is known. */
  resolveAccount(value: string): Id | null;
  /** `language:` value → the code statuses store, or the value itself (Mastodon's rule). */
  languageCode(value: string): string;
}

const SEQ_BITS = 16n;
/** The end of the id space: SQLite's largest integer (no id reaches it). */
export const ID_END = (1n << 63n) - 1n;
const DAY = 86_400_000;
/** Dates are milliseconds in the ids' 48 bits: later ones are clamped. */
const MAX_MS = 2 ** 47 - 1;

const idOf = (ms: number) => BigInt(Math.min(Math.max(Math.floor(ms), 0), MAX_MS)) << SEQ_BITS;

/** Mastodon's TermValidator: `yyyy-MM-dd` (a real day) or epoch milliseconds; else 422. */
function parseDate(value: string): { start: number; end: number } {
  const day = /^(\d{4})-(\d{2})-(\d{2})$/.exec(value);
  if (day) {
    const ms = Date.UTC(Number(day[1]), Number(day[2]) - 1, Number(day[3]));
    const d = new Date(ms);
    if (d.getUTCFullYear() === Number(day[1]) && d.getUTCMonth() === Number(day[2]) - 1 && d.getUTCDate() === Number(day[3])) {
      return { start: ms, end: ms + DAY };
    }
  } else if (/^\d{1,19}$/.test(value)) {
    const ms = Math.min(Number(value), MAX_MS);
    return { start: ms, end: ms + 1 };
  }
  const shown = value.length > 40 ? `${value.slice(0, 40)}…` : value;
  throw unprocessable(`Invalid date ${shown}`);
}

const textMatch = (s: string) => `text : ${ftsString(s)}`;
/** An FTS5 expression matching one word of the `meta` column. */
export const metaMatch = (word: string) => `meta : ${ftsString(word)}`;

/**
 * The query for `clauses`. Dates are days in UTC (Mastodon uses the user's time zone; roost
 * has no time zone setting): `before:D` is before D began, `after:D` after D ended, `during:D`
 * within D. Throws ApiError(422) for a date that is not one.
 */
export function compileStatusQuery(clauses: SearchClause[], ctx: QueryContext): StatusQuery {
  const q: StatusQuery = { must: [], mustNot: [], scope: "all", range: { from: 0n, to: ID_END }, excluded: [], impossible: false, constrained: false };
  const require = (expr: string, negated: boolean) => {
    (negated ? q.mustNot : q.must).push(expr);
    q.constrained = true;
  };
  for (const c of clauses) {
    const negated = c.op === "-";
    if (c.prefix === null) {
      if (!c.phrase && c.value.startsWith("#")) {
        const name = normalizeTag(c.value.slice(1));
        if (name !== "") require(metaMatch(tagWord(name)), negated);
      } else if (hasWord(c.value)) {
        require(textMatch(c.value), negated);
      }
      continue;
    }
    const value = c.value.trim();
    switch (c.prefix) {
      case "has":
      case "is": {
        const p = value.toLowerCase();
        // An unknown property is one no status has, as in Mastodon (a term filter on it).
        if ((STATUS_PROPERTIES as readonly string[]).includes(p)) require(metaMatch(propertyWord(p)), negated);
        else if (!negated) q.impossible = true;
        break;
      }
      case "language": {
        if (value !== "") require(metaMatch(languageWord(ctx.languageCode(value))), negated);
        break;
      }
      case "from": {
        const id = value === "me" ? ctx.viewerId : ctx.resolveAccount(value);
        if (id) require(metaMatch(authorWord(id)), negated);
        else if (!negated) q.impossible = true; // excluding nobody leaves everything
        break;
      }
      case "before":
      case "after":
      case "during": {
        const d = parseDate(value);
        const [from, to] = c.prefix === "before" ? [0, d.start] : c.prefix === "after" ? [d.end, Infinity] : [d.start, d.end];
        const r = { from: idOf(from), to: to === Infinity ? ID_END : idOf(to) };
        if (!negated) narrow(q, r);
        else if (c.prefix === "during") q.excluded.push(r);
        else narrow(q, c.prefix === "before" ? { from: r.to, to: ID_END } : { from: 0n, to: r.from });
        q.constrained = true;
        break;
      }
      case "in":
        // A flag, not a filter: `-in:` means the same, an unknown value searches both parts.
        q.scope = value === "library" || value === "public" ? value : "all";
        q.constrained = true;
        break;
    }
  }
  return q;
}

/** Restricts the query to ids within `r` as well. */
export function narrow(q: StatusQuery, r: IdRange): void {
  if (r.from > q.range.from) q.range.from = r.from;
  if (r.to < q.range.to) q.range.to = r.to;
}

/**
 * The FTS5 MATCH expression: the scope the viewer may search, every required expression, and
 * none of the excluded ones nor of `hidden` (meta words of authors and domains the viewer does
 * not want to see, a pre-filter of what the caller filters exactly afterwards). With `scoped`
 * false the scope is left out (only when `q.must` has an expression): the caller then checks
 * the scope of every hit itself.
 */
export function matchExpression(q: StatusQuery, viewerId: Id, hidden: string[] = [], scoped = true): string {
  const scope =
    q.scope === "library" ? metaMatch(libraryWord(viewerId)) : q.scope === "public" ? metaMatch(PUBLIC_WORD) : `meta : (${ftsString(PUBLIC_WORD)} OR ${ftsString(libraryWord(viewerId))})`;
  if (!scoped && q.must.length === 0) throw new Error("an expression without scope needs a required word");
  const positive = (scoped ? [scope, ...q.must] : q.must).join(" AND ");
  const negative = [...q.mustNot, ...hidden.map(metaMatch)];
  return negative.length ? `(${positive}) NOT (${negative.join(" OR ")})` : positive;
}
