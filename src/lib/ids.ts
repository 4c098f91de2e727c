/**
 * 64-bit time-ordered ids: the upper 48 bits are Unix milliseconds, the lower 16 bits a
 * per-millisecond sequence. They are stored as SQLite INTEGER and travel through TypeScript
 * as decimal strings (never a JS number: precision is lost above 2^53).
 */
export type Id = string;

const SEQ_BITS = 16n;
const SEQ_MAX = (1n << SEQ_BITS) - 1n;
const ID_RE = /^[1-9][0-9]{0,18}$/;
const MAX_ID = (1n << 63n) - 1n;

export interface IdGenerator {
  next(): Id;
  /** The smallest id that could have been generated at `ms` (for time-based cursors). */
  floor(ms: number): Id;
}

// Each new millisecond starts its sequence at a random point in the lower half, so two
// processes on one database (the server and a CLI command) rarely pick the same id, while
// at least 32,768 ids remain for the millisecond before it borrows the next one.
const randomStart = () => BigInt(Math.floor(Math.random() * 32_768));

export function createIdGenerator(now: () => number = Date.now): IdGenerator {
  let lastMs = 0;
  let seq = 0n;
  return {
    next() {
      let ms = now();
      if (ms < lastMs) ms = lastMs; // clock went backwards: keep ids increasing
      if (ms === lastMs) {
        seq += 1n;
        if (seq > SEQ_MAX) {
          // Sequence exhausted in this millisecond: borrow the next one.
          ms = lastMs + 1;
          seq = randomStart();
        }
      } else {
        seq = randomStart();
      }
      lastMs = ms;
      return ((BigInt(ms) << SEQ_BITS) | seq).toString();
    },
    floor(ms: number) {
      return (BigInt(Math.max(0, Math.floor(ms))) << SEQ_BITS).toString();
    },
  };
}

/**
 * An id for a record that happened at `ms` (a remote post keeps its publication time, as
 * Mastodon's Snowflake.id_at): the sequence bits are random, so callers that insert it must
 * expect (rarely) a taken id and draw again.
 */
export function idAt(ms: number): Id {
  const seq = BigInt(Math.floor(Math.random() * 65_536));
  return ((BigInt(Math.max(0, Math.floor(ms))) << SEQ_BITS) | seq).toString();
}

/** Milliseconds encoded in an id. */
export function idTime(id: Id): number {
  return Number(BigInt(id) >> SEQ_BITS);
}

/** True when `s` is a well-formed id that fits SQLite's signed 64-bit INTEGER. */
export function isId(s: unknown): s is Id {
  return typeof s === "string" && ID_RE.test(s) && BigInt(s) <= MAX_ID;
}

/** Parses an id from a request; undefined when malformed (callers answer 404 or ignore). */
export function parseId(v: unknown): Id | undefined {
  if (typeof v === "number" && Number.isSafeInteger(v) && v > 0) return String(v);
  if (typeof v !== "string") return undefined;
  const s = v.trim();
  return isId(s) ? s : undefined;
}

/** Orders id strings numerically (longer is larger, then lexical). */
export function compareIds(a: Id, b: Id): number {
  return a.length - b.length || (a < b ? -1 : a > b ? 1 : 0);
}
