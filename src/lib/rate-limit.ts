// Fixed-window request counters kept in memory (one process, so no shared store is needed).
// Used where Mastodon uses rack-attack throttles, e.g. password guessing on the sign-in form.

export interface Throttle {
  /** Counts a hit for `key`; returns the ms until the window resets when over the limit, else 0. */
  hit(key: string, now: number): number;
}

export function createThrottle(limit: number, periodMs: number, maxKeys = 10_000): Throttle {
  const windows = new Map<string, { start: number; count: number }>();
  return {
    hit(key, now) {
      let w = windows.get(key);
      if (!w || now - w.start >= periodMs) {
        // Expired windows are dropped when the table is full, oldest first (insertion order).
        if (!w && windows.size >= maxKeys) {
          for (const [k, v] of windows) {
            if (now - v.start >= periodMs || windows.size >= maxKeys) windows.delete(k);
            if (windows.size < maxKeys * 0.9) break;
          }
        }
        w = { start: now, count: 0 };
        windows.delete(key);
        windows.set(key, w);
      }
      w.count++;
      return w.count > limit ? w.start + periodMs - now : 0;
    },
  };
}
