// The account search's ranked name index in memory (src/search/DESIGN.md, "Account search"):
// every account's name words in one sorted array (a prefix's words are a contiguous run, found
// by binary search: walking MiniSearch's radix tree under `ali` was 5 times slower), each
// with its account slots, and per account what the ranking and the viewer-independent filters need (local, followers,
// lower-cased username, hidden). A one-word prefix query (what a person types in an app's search
// box) collects its matches from the tree and ranks them here, without touching the database
// beyond the viewer's follows and blockers; storage/account-search.ts answers every other shape
// (handles with a domain, several words) and stays the reference this index must agree with.
//
// Kept exact from row changes (db/row-changes.ts: accounts and users rows, other processes'
// commits), refreshed at the next query, built on first use (an idle server holds nothing) and
// only up to MAX_ACCOUNTS known accounts: beyond that the database answers.
import { type DB, type Row, stmt, str, idListJson } from "../db/db.ts";
import { mayFillCaches, onRowChange, syncOtherWriters } from "../db/row-changes.ts";
import type { Id } from "../lib/ids.ts";
import { nameWords } from "./fuzzy-names.ts";

/**
 * The most accounts held by default (about 300 bytes of heap each, measured at 10k: so at most
 * about 15 MB): a bound on memory; an instance that knows more is answered by the database.
 */
export const MAX_ACCOUNTS = 50_000;
/** How often an instance over the bound counts its accounts again. */
const RECOUNT_MS = 10 * 60_000;
/** Words kept per account: display names are short; a remote one may not be. */
const MAX_WORDS_PER_ACCOUNT = 32;
/** A slot no account uses (deleted, reusable). */
const FREE = 2;
const HIDDEN = 1;
/** Followers beyond this rank as equal (keys stay exact doubles; no account comes close). */
const FC_CAP = 2 ** 40 - 1;
/** A sort key's group unit: above every `order` value (keys stay exact doubles, below 2^53). */
const GROUP = 2 ** 42;

const ROWS = `SELECT a.id, a.username, a.display_name, a.domain IS NULL AS local, a.followers_count AS fc,
       (a.suspended_at IS NOT NULL OR (a.domain IS NULL AND (u.confirmed_at IS NULL OR u.approved <> 1))) AS hidden
     FROM accounts a LEFT JOIN users u ON u.account_id = a.id`;

export interface NameQuery {
  /** Accounts with a name word starting with `prefix` (one word, as nameWords makes them)... */
  prefix?: string;
  /** ...or with any of these exact words (the typo round). */
  words?: string[];
  /** The lower-cased username ranked first when equal. */
  term: string;
  viewerId: Id;
  following: boolean;
  exclude: Id[];
  limit: number;
  offset: number;
}

/** ASCII-only lower case: SQLite's lower(), which the database's ranking uses. */
const asciiLower = (s: string) => s.replace(/[A-Z]+/g, (c) => c.toLowerCase());

const split = (joined: string) => (joined === "" ? [] : joined.split(" "));

/** The first index of `list` whose word is not below `w`. */
function lowerBound(list: string[], w: string): number {
  let lo = 0;
  let hi = list.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (list[mid] < w) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

class AccountNames {
  /** Every word, sorted (code units), and the slots of the accounts using it. */
  private wordList: string[] = [];
  private postings: number[][] = [];
  private readonly slotOf = new Map<bigint, number>();
  private ids: bigint[] = [];
  private usernames: string[] = [];
  /** Local first, then the most followers: a number, smaller first (below GROUP). */
  private order: number[] = [];
  private flags: number[] = [];
  /** Each account's words, joined by spaces (one string is far smaller than an array of them). */
  private wordsOf: string[] = [];
  private free: number[] = [];
  /** Query epoch per slot: a match seen twice (two of its words) counts once. */
  private seen = new Uint32Array(0);
  /** Query epoch per slot: the viewer follows the account. */
  private followed = new Uint32Array(0);
  private epoch = 0;
  private readonly dirty = new Set<string>();
  private stale = true;
  /** More accounts than `max` at the last build: the database answers. */
  private tooMany = false;
  private countedAt = 0;

  constructor(private readonly max: number) {}

  touch(id: string | null): void {
    if (id === null) this.stale = true;
    else if (!this.stale) this.dirty.add(id);
  }

  size(): number {
    return this.slotOf.size;
  }

  /** Brings the index up to date; false when it cannot answer now. */
  ready(db: DB): boolean {
    syncOtherWriters(db);
    if (this.tooMany) {
      // Nothing is held: changes need no refresh, only a recount now and then (pruning and
      // purges remove accounts).
      this.dirty.clear();
      if (Date.now() - this.countedAt < RECOUNT_MS) return false;
      this.stale = true;
    }
    if (!this.stale && this.dirty.size === 0) return true;
    if (!mayFillCaches(db)) return false; // rows read now may still be rolled back
    if (this.stale) this.build(db);
    else this.refresh(db);
    return !this.tooMany;
  }

  private build(db: DB): void {
    this.stale = false;
    this.dirty.clear();
    this.wordList = [];
    this.postings = [];
    this.slotOf.clear();
    this.ids = [];
    this.usernames = [];
    this.order = [];
    this.flags = [];
    this.wordsOf = [];
    this.free = [];
    const count = Number(stmt(db, "SELECT count(*) FROM accounts").pluck().get());
    this.tooMany = count > this.max;
    this.countedAt = Date.now();
    if (this.tooMany) return;
    const byWord = new Map<string, number[]>();
    for (const r of stmt(db, ROWS).iterate() as Iterable<Row>) {
      const slot = this.put(r, false);
      for (const w of split(this.wordsOf[slot])) {
        const list = byWord.get(w);
        if (list) list.push(slot);
        else byWord.set(w, [slot]);
      }
    }
    this.wordList = [...byWord.keys()].sort();
    this.postings = this.wordList.map((w) => byWord.get(w)!);
    this.grow();
  }

  private grow(): void {
    this.seen = new Uint32Array(this.ids.length + 1024);
    this.followed = new Uint32Array(this.ids.length + 1024);
    this.epoch = 0;
  }

  private refresh(db: DB): void {
    const ids = [...this.dirty];
    this.dirty.clear();
    const rows = stmt(db, `${ROWS} WHERE a.id IN (SELECT value FROM json_each(?))`).all(idListJson(ids)) as Row[];
    const present = new Set<string>();
    for (const r of rows) {
      present.add(str(r.id));
      this.put(r);
    }
    for (const id of ids) if (!present.has(id)) this.remove(BigInt(id));
    if (this.slotOf.size > this.max) {
      // Grown past the bound since the build: let the next build decide (and hold nothing).
      this.stale = true;
      this.build(db);
      return;
    }
    if (this.seen.length < this.ids.length) this.grow();
  }

  /** Sets the account's slot from its row; `post`: also its words' postings (not while building). */
  private put(r: Row, post = true): number {
    const id = r.id as bigint;
    const words = [...new Set(nameWords(`${r.username as string} ${(r.display_name as string | null) ?? ""}`))].slice(0, MAX_WORDS_PER_ACCOUNT);
    let slot = this.slotOf.get(id);
    if (slot === undefined) {
      slot = this.free.pop() ?? this.ids.length;
      this.slotOf.set(id, slot);
      this.ids[slot] = id;
      this.wordsOf[slot] = "";
    }
    this.usernames[slot] = asciiLower(r.username as string);
    this.order[slot] = (Number(r.local) === 1 ? 0 : FC_CAP + 1) + (FC_CAP - Math.min(Math.max(Number(r.fc), 0), FC_CAP));
    this.flags[slot] = Number(r.hidden) === 1 ? HIDDEN : 0;
    const joined = words.join(" ");
    const old = this.wordsOf[slot];
    if (old === joined) return slot;
    this.wordsOf[slot] = joined;
    if (!post) return slot;
    for (const w of split(old)) this.unpost(w, slot);
    for (const w of words) {
      const i = lowerBound(this.wordList, w);
      if (this.wordList[i] === w) this.postings[i].push(slot);
      else {
        this.wordList.splice(i, 0, w);
        this.postings.splice(i, 0, [slot]);
      }
    }
    return slot;
  }

  private remove(id: bigint): void {
    const slot = this.slotOf.get(id);
    if (slot === undefined) return;
    for (const w of split(this.wordsOf[slot])) this.unpost(w, slot);
    this.slotOf.delete(id);
    this.wordsOf[slot] = "";
    this.flags[slot] = FREE;
    this.free.push(slot);
  }

  private unpost(word: string, slot: number): void {
    const i = lowerBound(this.wordList, word);
    if (this.wordList[i] !== word) return;
    const list = this.postings[i];
    const at = list.indexOf(slot);
    if (at !== -1) list.splice(at, 1);
    if (list.length === 0) {
      this.wordList.splice(i, 1);
      this.postings.splice(i, 1);
    }
  }

  /** Ranked ids of the page: exact usernames, then followed accounts, then local and most followed. */
  rank(db: DB, q: NameQuery): Id[] {
    if (this.epoch === 0xfffffffe) this.grow(); // the marks start over
    this.epoch++;
    const epoch = this.epoch;
    const viewer = BigInt(q.viewerId);
    // Accounts blocking the viewer and excluded ones count as seen: skipped by the walk below.
    for (const id of stmt(db, "SELECT account_id FROM blocks WHERE target_account_id = ?").pluck().all(viewer) as bigint[]) {
      const s = this.slotOf.get(id);
      if (s !== undefined) this.seen[s] = epoch;
    }
    for (const id of q.exclude) {
      const s = this.slotOf.get(BigInt(id));
      if (s !== undefined) this.seen[s] = epoch;
    }
    for (const id of stmt(db, "SELECT target_account_id FROM follows WHERE account_id = ?").pluck().all(viewer) as bigint[]) {
      const s = this.slotOf.get(id);
      if (s !== undefined) this.followed[s] = epoch;
    }
    const slots: number[] = [];
    const keys: number[] = [];
    const { seen, followed, flags, usernames, order } = this;
    const consider = (list: number[]) => {
      for (const s of list) {
        if (seen[s] === epoch) continue;
        seen[s] = epoch;
        if (flags[s] !== 0) continue;
        const isFollowed = followed[s] === epoch;
        if (q.following && !isFollowed) continue;
        // Groups: exact and followed, exact, followed, the rest; then local and most followed.
        const group = usernames[s] === q.term ? (isFollowed ? 0 : 1) : isFollowed ? 2 : 3;
        slots.push(s);
        keys.push(group * GROUP + order[s]);
      }
    };
    if (q.prefix !== undefined) {
      const p = q.prefix;
      for (let i = lowerBound(this.wordList, p); i < this.wordList.length && this.wordList[i].startsWith(p); i++) consider(this.postings[i]);
    } else {
      for (const w of q.words ?? []) {
        const i = lowerBound(this.wordList, w);
        if (this.wordList[i] === w) consider(this.postings[i]);
      }
    }
    const want = q.offset + q.limit;
    if (slots.length === 0 || q.limit <= 0 || q.offset >= slots.length) return [];
    // The page's last key (a native sort of numbers), then only the keys up to it ordered fully.
    const sorted = Float64Array.from(keys).sort();
    const last = sorted[Math.min(want, slots.length) - 1];
    const top: number[] = [];
    for (let i = 0; i < slots.length; i++) if (keys[i] <= last) top.push(i);
    top.sort((a, b) => keys[a] - keys[b] || (this.ids[slots[a]] < this.ids[slots[b]] ? -1 : 1));
    return top.slice(q.offset, want).map((i) => str(this.ids[slots[i]]));
  }
}

export const ACCOUNT_NAMES_KEY = "search:account-names";

interface HasCache {
  db: DB;
  cache: Map<string, unknown>;
}

/**
 * Sets up the index's row watches (built on first use). Outside transactions, after migrations.
 * `maxAccounts`: tests lower the bound.
 */
export function installAccountNames(app: HasCache, maxAccounts = MAX_ACCOUNTS): void {
  if (app.cache.has(ACCOUNT_NAMES_KEY)) return;
  if (app.db.inTransaction) throw new Error("account names: install outside transactions");
  const index = new AccountNames(maxAccounts);
  onRowChange(app.db, "accounts", "id", (id) => index.touch(id));
  onRowChange(app.db, "users", "account_id", (id) => index.touch(id));
  app.cache.set(ACCOUNT_NAMES_KEY, index);
}

/**
 * The page of a one-word prefix (or exact-words) account search, ranked as
 * storage/account-search.ts ranks it; null when the index cannot answer (not installed, too
 * many accounts, or inside a write transaction): the database answers then.
 */
export function rankAccountsByName(app: HasCache, q: NameQuery): Id[] | null {
  const index = app.cache.get(ACCOUNT_NAMES_KEY) as AccountNames | undefined;
  if (!index || !index.ready(app.db)) return null;
  return index.rank(app.db, q);
}

/** Accounts held (diagnostics and the bench). */
export function accountNamesSize(app: HasCache): number {
  return (app.cache.get(ACCOUNT_NAMES_KEY) as AccountNames | undefined)?.size() ?? 0;
}
