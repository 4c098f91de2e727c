// Politeness of the backfill jobs (issue 19 part 6) towards each remote host: at most
// backfillHostConcurrency requests at once, and a token bucket of backfillHostBurst requests
// refilled at backfillHostRate per second. Both are kept per app (state of the app's
// lifetime, not of the module's), shared by every thread, profile and follow backfill.
// A wait ends early when the job's signal says it is out of time.
import type { App } from "../app.ts";
import { hostOf } from "./parse/common.ts";

interface HostState {
  active: number;
  waiting: (() => void)[];
  tokens: number;
  /** Date.now() of the last refill. */
  refilledAt: number;
}

const hostsOf = new WeakMap<App, Map<string, HostState>>();

export class OutOfTime extends Error {
  override name = "OutOfTime";
}

function stateOf(app: App, host: string): HostState {
  let hosts = hostsOf.get(app);
  if (!hosts) hostsOf.set(app, (hosts = new Map()));
  let s = hosts.get(host);
  if (!s) hosts.set(host, (s = { active: 0, waiting: [], tokens: app.config.backfillHostBurst, refilledAt: Date.now() }));
  return s;
}

/** Waits `ms`, or less when the signal aborts (then throws OutOfTime). */
function pause(ms: number, signal: AbortSignal | undefined): Promise<void> {
  if (signal?.aborted) return Promise.reject(new OutOfTime());
  return new Promise((resolve, reject) => {
    const onAbort = () => {
      clearTimeout(timer);
      reject(new OutOfTime());
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}

/** Takes one token of the host's bucket, waiting for the refill when it is empty. */
async function takeToken(app: App, s: HostState, signal: AbortSignal | undefined): Promise<void> {
  const { backfillHostRate: rate, backfillHostBurst: burst } = app.config;
  for (;;) {
    const now = Date.now();
    s.tokens = Math.min(burst, s.tokens + ((now - s.refilledAt) / 1000) * rate);
    s.refilledAt = now;
    if (s.tokens >= 1) {
      s.tokens -= 1;
      return;
    }
    await pause(Math.ceil(((1 - s.tokens) / rate) * 1000), signal);
  }
}

/** Waits for one of the host's backfillHostConcurrency slots. */
async function takeSlot(app: App, s: HostState, signal: AbortSignal | undefined): Promise<void> {
  while (s.active >= app.config.backfillHostConcurrency) {
    if (signal?.aborted) throw new OutOfTime();
    await new Promise<void>((resolve, reject) => {
      const wake = () => {
        signal?.removeEventListener("abort", onAbort);
        resolve();
      };
      const onAbort = () => {
        const i = s.waiting.indexOf(wake);
        if (i !== -1) s.waiting.splice(i, 1);
        reject(new OutOfTime());
      };
      s.waiting.push(wake);
      signal?.addEventListener("abort", onAbort, { once: true });
    });
  }
  s.active++;
}

/**
 * Runs `fn` (one request to `url`'s host) once the host's rate and concurrency allow it.
 * Throws OutOfTime when `signal` aborts while waiting.
 */
export async function politely<T>(app: App, url: string, signal: AbortSignal | undefined, fn: () => Promise<T>): Promise<T> {
  const host = hostOf(url) ?? "";
  const s = stateOf(app, host);
  await takeToken(app, s, signal);
  await takeSlot(app, s, signal);
  try {
    return await fn();
  } finally {
    s.active--;
    s.waiting.shift()?.();
    // A host left idle whose bucket has refilled needs no state.
    const { backfillHostRate: rate, backfillHostBurst: burst } = app.config;
    const refilled = s.tokens + ((Date.now() - s.refilledAt) / 1000) * rate >= burst;
    if (s.active === 0 && s.waiting.length === 0 && refilled) hostsOf.get(app)?.delete(host);
  }
}
