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
