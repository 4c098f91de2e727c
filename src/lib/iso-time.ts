// ISO 8601 timestamps of entity fields (created_at, edited_at). A page of statuses formats
// the same few dozen times again and again, and Date#toISOString shows in the profile of the
// home timeline: the strings are kept in a small bounded map.

const MAX = 20_000;
const cache = new Map<number, string>();

/** `new Date(ms).toISOString()`, remembered. */
export function isoTime(ms: number): string {
  let s = cache.get(ms);
  if (s === undefined) {
    s = new Date(ms).toISOString();
    if (cache.size >= MAX) cache.clear();
    cache.set(ms, s);
  }
  return s;
}

// Calendar date, then optionally a time (`T` or a space) with seconds and a fraction, then an
// optional offset. Without an offset the time is UTC, as Mastodon's `to_datetime` reads it.
const ISO_RE = /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:[.,](\d{1,9}))?)?)?\s*(Z|[+-]\d{2}(?::?\d{2})?)?$/i;

/**
 * An ISO 8601 date-time from a request parameter, in ms since the epoch; undefined when it is
 * not one or names no real moment (2024-02-30, 25:00, an offset beyond ±18 h).
 */
export function parseIsoTime(raw: string): number | undefined {
  if (raw.length > 100) return undefined;
  const m = ISO_RE.exec(raw.trim());
  if (!m) return undefined;
  const [year, month, day, hour = 0, minute = 0, second = 0] = m.slice(1, 7).map((x) => (x === undefined ? undefined : Number(x))) as number[];
  if (month < 1 || month > 12 || day < 1 || hour > 23 || minute > 59 || second > 59) return undefined;
  const d = new Date(0);
  d.setUTCFullYear(year, month - 1, day); // not Date.UTC, which reads years 0-99 as 1900-1999
  if (d.getUTCDate() !== day) return undefined; // Feb 30 rolled over into March
  d.setUTCHours(hour, minute, second, Math.floor(Number(`0.${m[7] ?? "0"}`) * 1000));
  const ms = d.getTime();
  let offset = 0;
  const zone = m[8];
  if (zone && zone.toUpperCase() !== "Z") {
    const digits = zone.slice(1).replace(":", "");
    const h = Number(digits.slice(0, 2));
    const min = digits.length > 2 ? Number(digits.slice(2)) : 0;
    if (h > 18 || min > 59) return undefined;
    offset = (zone[0] === "-" ? -1 : 1) * (h * 60 + min) * 60_000;
  }
  return ms - offset;
}
