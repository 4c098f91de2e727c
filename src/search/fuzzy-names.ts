// Typo-tolerant matching of names (src/search/DESIGN.md): the words of account names and the
// hashtag names, in MiniSearch's radix tree (SearchableMap), searched by edit distance when
// prefix matching on the indexes finds too little (`alcie` → `alice`, `#fediverso` → `fediverse`).
// Only words are held (about 250 bytes each, at most MAX_WORDS per vocabulary), built on first
// use and kept current from row changes (db/row-changes.ts), so an idle server holds nothing.
import SearchableMap from "minisearch/SearchableMap";
import type { App } from "../app.ts";
import { type DB, type Row, stmt, idListJson } from "../db/db.ts";
import { onRowChange, syncOtherWriters } from "../db/row-changes.ts";

/** The most words one vocabulary holds (the most used first): a bound on its memory. */
export const MAX_WORDS = 50_000;
/** Words shorter than this are not matched fuzzily (too many near neighbours). */
const MIN_FUZZY_LENGTH = 4;
const MAX_FUZZY_LENGTH = 64;

interface Source {
  /** Every word, most used first. */
  all(db: DB, max: number): string[];
  /** The words of changed rows. */
  of(db: DB, ids: string): string[];
}

/** Words as the account index's tokenizer (unicode61, remove_diacritics 2) makes them. */
export function nameWords(s: string): string[] {
  return s
    .normalize("NFKD")
    .replace(/\p{M}/gu, "")
    .toLowerCase()
    .split(/[^\p{L}\p{N}\p{Co}]+/u)
    .filter((w) => w !== "");
}

const ACCOUNT_WORDS: Source = {
  all: (db, max) => (stmt(db, "SELECT term FROM account_search_terms ORDER BY doc DESC LIMIT ?").all(max) as Row[]).map((r) => r.term as string),
  of: (db, ids) =>
    (stmt(db, "SELECT username, display_name FROM accounts WHERE id IN (SELECT value FROM json_each(?))").all(ids) as Row[]).flatMap((r) =>
      nameWords(`${r.username as string} ${r.display_name as string}`),
    ),
};

const TAG_NAMES: Source = {
  all: (db, max) => (stmt(db, "SELECT name FROM tags ORDER BY last_status_at DESC LIMIT ?").all(max) as Row[]).map((r) => r.name as string),
  of: (db, ids) => (stmt(db, "SELECT name FROM tags WHERE id IN (SELECT value FROM json_each(?))").all(ids) as Row[]).map((r) => r.name as string),
};

class Vocabulary {
  private words: SearchableMap<true> | null = null;
  private readonly pending = new Set<string>();
  private stale = true;

  constructor(private readonly source: Source) {}

  /** A row changed (its id), or anything may have (null). */
  touch(id: string | null): void {
    if (id === null) this.stale = true;
    else if (!this.stale) this.pending.add(id);
  }

  private current(db: DB): SearchableMap<true> {
    if (this.stale || !this.words) {
      this.words = new SearchableMap<true>();
      for (const w of this.source.all(db, MAX_WORDS)) this.words.set(w, true);
      this.stale = false;
      this.pending.clear();
    } else if (this.pending.size > 0) {
      const ids = idListJson(this.pending);
      this.pending.clear();
      for (const w of this.source.of(db, ids)) if (this.words.size < MAX_WORDS && !this.words.has(w)) this.words.set(w, true);
    }
    return this.words;
  }

  /**
   * Known words within edit distance 1 of `word` (2 from 8 characters), nearest first. Two
   * neighbouring letters swapped (`alcie`) count as one edit, the commonest typo, which
   * Levenshtein distance (the radix tree's) counts as two.
   */
  near(db: DB, word: string, max: number): string[] {
    if (word.length < MIN_FUZZY_LENGTH || word.length > MAX_FUZZY_LENGTH) return [];
    const words = this.current(db);
    const distance = new Map<string, number>();
    for (const [w, [, d]] of words.fuzzyGet(word, word.length >= 8 ? 2 : 1)) distance.set(w, d);
    for (let i = 0; i + 1 < word.length; i++) {
      const swapped = word.slice(0, i) + word[i + 1] + word[i] + word.slice(i + 2);
      if (swapped !== word && words.has(swapped)) distance.set(swapped, Math.min(distance.get(swapped) ?? 1, 1));
    }
    return [...distance.entries()]
      .sort((a, b) => a[1] - b[1] || (a[0] < b[0] ? -1 : 1))
      .slice(0, max)
      .map(([w]) => w);
  }

  size(): number {
    return this.words?.size ?? 0;
  }
}

interface FuzzyNames {
  accounts: Vocabulary;
  tags: Vocabulary;
}

const KEY = "search:fuzzy-names";

/**
 * Sets up the vocabularies and their row watches. Call once the schema is migrated and outside
 * any transaction (main.ts startServer does): see storage/row-cache.ts installRowCache.
 */
export function installFuzzyNames(app: App): void {
  if (app.cache.has(KEY)) return;
  if (app.db.inTransaction) throw new Error("fuzzy names: install outside transactions");
  const state: FuzzyNames = { accounts: new Vocabulary(ACCOUNT_WORDS), tags: new Vocabulary(TAG_NAMES) };
  onRowChange(app.db, "accounts", "id", (id) => state.accounts.touch(id));
  onRowChange(app.db, "tags", "id", (id) => state.tags.touch(id));
  app.cache.set(KEY, state);
}

function vocabulary(app: App, kind: keyof FuzzyNames): Vocabulary | undefined {
  const state = app.cache.get(KEY) as FuzzyNames | undefined;
  if (state) syncOtherWriters(app.db);
  return state?.[kind];
}

/** Words of account names near `word` (none when the server did not install the matcher). */
export function nearAccountWords(app: App, word: string, max = 8): string[] {
  return vocabulary(app, "accounts")?.near(app.db, word, max) ?? [];
}

/** Hashtag names near `name` (normalised). */
export function nearTagNames(app: App, name: string, max = 8): string[] {
  return vocabulary(app, "tags")?.near(app.db, name, max) ?? [];
}

/** Words held by each vocabulary (diagnostics and the bench). */
export function fuzzyNamesSize(app: App): { accounts: number; tags: number } {
  const state = app.cache.get(KEY) as FuzzyNames | undefined;
  return { accounts: state?.accounts.size() ?? 0, tags: state?.tags.size() ?? 0 };
}
