/** Median of a non-empty list (the mean of the middle two for an even count). */
export function median(values: number[]): number {
  const v = [...values].sort((a, b) => a - b);
  const mid = Math.floor(v.length / 2);
  return v.length % 2 ? v[mid] : (v[mid - 1] + v[mid]) / 2;
}

/** The value at quantile q (0..1) of a non-empty list, nearest rank. */
export function quantile(values: number[], q: number): number {
  const v = [...values].sort((a, b) => a - b);
  return v[Math.min(v.length - 1, Math.max(0, Math.ceil(q * v.length) - 1))];
}

interface Rated {
  reqPerSec: number | null;
  trials?: { reqPerSec: number }[];
}

/**
 * A target's throughput relative to its baseline. With several interleaved trials it is the
 * median of each trial's ratio: a trial and the baseline run beside it saw the same machine
 * load, so a burst of load elsewhere moves both and cancels out. Null when either is unmeasured.
 */
export function relativeThroughput(target: Rated | undefined, base: Rated | undefined): number | null {
  if (!target?.reqPerSec || !base?.reqPerSec) return null;
  const t = target.trials, b = base.trials;
  if (t && b && t.length === b.length && t.length > 1) return median(t.map((x, i) => x.reqPerSec / b[i].reqPerSec));
  return target.reqPerSec / base.reqPerSec;
}
