import { monitorEventLoopDelay } from "node:perf_hooks";
import { getRouterParam } from "h3";
import type { App } from "../../app.ts";
import type { Router } from "../router.ts";

/**
 * The benchmark's baseline (bench/run.ts): a fixed JSON document shaped and sized like a
 * CredentialAccount (~1.8 KB), answered through the same middleware as the API but with no
 * database or auth work, so it measures the HTTP stack alone. Registered only when the
 * `benchRoutes` setting (ROOST_BENCH_ROUTES=1) is on.
 */
export function registerBenchRoutes(app: App, r: Router): void {
  const base = app.baseUrl;
  const doc = Object.freeze({
    id: "110000000000000001",
    username: "baseline",
    acct: "baseline",
    display_name: "Baseline",
    locked: false,
    bot: false,
    discoverable: true,
    indexable: false,
    group: false,
    created_at: "2024-01-01T00:00:00.000Z",
    note: "<p>A fixed document the benchmark compares real endpoints against.</p>",
    url: `${base}/@baseline`,
    uri: `${base}/users/baseline`,
    avatar: `${base}/avatars/original/missing.png`,
    avatar_static: `${base}/avatars/original/missing.png`,
    header: `${base}/headers/original/missing.png`,
    header_static: `${base}/headers/original/missing.png`,
    followers_count: 0,
    following_count: 0,
    statuses_count: 0,
    last_status_at: null,
    hide_collections: null,
    noindex: false,
    source: {
      privacy: "public",
      sensitive: false,
      language: null,
      note: "A fixed document the benchmark compares real endpoints against.",
      fields: [],
      follow_requests_count: 0,
      hide_collections: null,
      discoverable: true,
      indexable: false,
      attribution_domains: [],
    },
    emojis: [],
    roles: [],
    fields: [],
    role: {
      id: "-99",
      name: "",
      permissions: "0",
      color: "",
      highlighted: false,
    },
  });
  r.get("/api/v1/_bench/static", () => doc);

  // `/api/v1/_bench/static/<bytes>`: an array of copies of the document about that many bytes
  // long, the baseline for endpoints with larger pages (timelines). Built once per size.
  const sized = new Map<number, unknown[]>();
  const one = JSON.stringify(doc).length + 1;
  r.get("/api/v1/_bench/static/:bytes", (event) => {
    const bytes = Math.min(Math.max(Math.trunc(Number(getRouterParam(event, "bytes"))) || 0, 0), 1_000_000);
    let body = sized.get(bytes);
    if (!body) {
      body = Array.from({ length: Math.max(1, Math.round(bytes / one)) }, () => doc);
      if (sized.size < 16) sized.set(bytes, body);
    }
    return body;
  });

  // `/api/v1/_bench/runtime?reset=1`: the event loop's delay since the last reset (is the loop
  // blocked while the pool works?) and the worker pool's live threads (has it shrunk?).
  const loop = monitorEventLoopDelay({ resolution: 10 });
  loop.enable();
  r.get("/api/v1/_bench/runtime", (event) => {
    const ms = (ns: number) => Math.round(ns / 1e4) / 100;
    const mb = (b: number) => Math.round(b / 1048576);
    const m = process.memoryUsage();
    const body = {
      eventLoopDelayMs: { p50: ms(loop.percentile(50)), p99: ms(loop.percentile(99)), max: ms(loop.max) },
      poolThreads: app.pool.threads(),
      memoryMb: { rss: mb(m.rss), heapTotal: mb(m.heapTotal), heapUsed: mb(m.heapUsed), external: mb(m.external), arrayBuffers: mb(m.arrayBuffers) },
    };
    if (event.url.searchParams.has("reset")) loop.reset();
    return body;
  });
}
