// Issue 14's soak: a steady mixed load for 30 minutes (`--minutes N` to change it): timeline
// and notification reads, posts (with fan-out), and signed Create(Note) activities into the
// inbox from followed remote actors. Each minute's RSS and p99 latency are recorded; the
// budgets compare minute 5 with the last minute (minute 30): RSS drift < 10%, p99 drift < 20%.
// A shorter run compares the minute at the same fraction (a sixth of the run) with its last.
// Streaming is in the mix: each user holds a WebSocket (user and public:local streams) and an SSE
// user stream for the whole run, as open apps and browser tabs do; frames received are counted.
import { tx } from "../../src/db/db.ts";
import { parseApActor } from "../../src/federation/parse/actor.ts";
import { upsertRemoteAccount } from "../../src/federation/resolve/accounts.ts";
import { authorizeFollowRequest, followAccount } from "../../src/services/follows.ts";
import { CLI_APP, ensureBuiltinApp, issueToken } from "../../src/services/tokens.ts";
import { openEventStream, openMany, openWebSocket, type StreamClient } from "../lib/stream-clients.ts";
import { createUser } from "../../src/services/users.ts";
import { type ActorHost, type BenchActor, PUBLIC, signedPostHeaders, startActorHost } from "../lib/peers.ts";
import { type MemorySplit, memorySplit } from "../lib/memory-split.ts";
import { rssMb } from "../lib/rss.ts";
import { median, quantile } from "../lib/stats.ts";
import type { Check, Metric, RunSummary, Scenario } from "../scenario.ts";

const USERS = 30;
const FOLLOWS_EACH = 10;
const ACTORS = 4;
/** Requests per second of each kind: a busy small instance, not a saturation test. */
const RATES = { read: 40, post: 4, inbox: 8 } as const;
/** In-flight cap per kind: beyond it a tick is skipped (and counted) instead of piling up. */
const MAX_IN_FLIGHT = 32;
const RSS_BUDGET = 0.1;
const P99_BUDGET = 0.2;

type Kind = keyof typeof RATES;

interface Seed {
  tokens: string[];
  accountIds: string[];
}

interface Minute {
  minute: number;
  rssMb: number | null;
  requests: number;
  errors: number;
  skipped: number;
  p99Ms: Record<Kind | "all", number | null>;
  /** Sampled at the minute's end: JS heap, Buffers and native memory, to tell a drift apart. */
  memory: MemorySplit | null;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function note(actor: BenchActor, n: string): string {
  const published = new Date().toISOString();
  const id = `${actor.id}/statuses/${n}`;
  const to = { to: [PUBLIC], cc: [actor.followers] };
  return JSON.stringify({
    "@context": "https://www.w3.org/ns/activitystreams",
    id: `${id}/activity`,
    type: "Create",
    actor: actor.id,
    published,
    ...to,
    object: { id, type: "Note", attributedTo: actor.id, published, url: id, ...to, content: `<p>Soak note ${n}, a few words long.</p>`, sensitive: false, attachment: [], tag: [] },
  });
}

export function soakScenario(): Scenario<Seed> {
  let host: ActorHost | undefined;
  return {
    name: "soak",
    description: `mixed load for --minutes (default 30): ${RATES.read} reads/s, ${RATES.post} posts/s, ${RATES.inbox} inbox activities/s; RSS and p99 per minute`,
    init: { allowPrivateAddresses: true },
    async seed(app) {
      host = await startActorHost(ACTORS);
      const cli = ensureBuiltinApp(app, CLI_APP);
      const made = await Promise.all(
        Array.from({ length: USERS }, (_, i) => createUser(app, { username: `soak${i}`, email: `soak${i}@bench.test`, password: "bench password 1" })),
      );
      tx(app.db, () => {
        for (const [i, { account }] of made.entries()) {
          for (let k = 1; k <= FOLLOWS_EACH; k++) followAccount(app, account, made[(i + k) % USERS].account, {});
        }
        for (const actor of host!.actors) {
          const remote = upsertRemoteAccount(app, parseApActor(actor.doc), host!.domain);
          for (const { account } of made.slice(0, 10)) {
            followAccount(app, account, remote, {});
            authorizeFollowRequest(app, remote, account.id);
          }
        }
        app.db.prepare("DELETE FROM jobs WHERE queue = 'federation'").run();
      });
      return {
        tokens: made.map(({ user }) => issueToken(app, { userId: user.id, applicationId: cli.id, scopes: ["read", "write"] }).token),
        accountIds: made.map(({ account }) => account.id),
      };
    },
    targets: () => [],
    async measure({ url, pid, dataDir, seed, minutes }) {
      const durationMs = minutes * 60_000;
      const buckets: { lat: Record<Kind, number[]>; requests: number; errors: number; skipped: number; rss: number[] }[] = [];
      const bucket = (t: number) => (buckets[Math.floor(t / 60_000)] ??= { lat: { read: [], post: [], inbox: [] }, requests: 0, errors: 0, skipped: 0, rss: [] });
      const inFlight: Record<Kind, number> = { read: 0, post: 0, inbox: 0 };
      const t0 = performance.now();
      let n = 0;
      const reads = (i: number): { path: string; token: string } => {
        const token = seed.tokens[i % seed.tokens.length];
        const paths = ["/api/v1/timelines/home", "/api/v1/timelines/public?local=true", `/api/v1/accounts/${seed.accountIds[i % seed.accountIds.length]}/statuses`, "/api/v1/notifications"];
        return { path: paths[i % paths.length], token };
      };
      const send = async (kind: Kind) => {
        const at = performance.now() - t0;
        const b = bucket(at);
        if (inFlight[kind] >= MAX_IN_FLIGHT) {
          b.skipped++;
          return;
        }
        inFlight[kind]++;
        const i = n++;
        const started = performance.now();
        try {
          let res: Response;
          if (kind === "read") {
            const r = reads(i);
            res = await fetch(url + r.path, { headers: { authorization: `Bearer ${r.token}` } });
          } else if (kind === "post") {
            res = await fetch(`${url}/api/v1/statuses`, {
              method: "POST",
              headers: { authorization: `Bearer ${seed.tokens[i % seed.tokens.length]}`, "content-type": "application/json" },
              body: JSON.stringify({ status: `Soak post ${i} about #fediverse things` }),
            });
          } else {
            const actor = host!.actors[i % host!.actors.length];
            const body = note(actor, `${Date.now().toString(36)}-${i}`);
            const headers = await signedPostHeaders(`${url}/inbox`, body, actor.keyId, actor.privateKey);
            const { host: _h, ...rest } = headers;
            res = await fetch(`${url}/inbox`, { method: "POST", headers: rest, body });
          }
          await res.arrayBuffer();
          b.requests++;
          if (res.status >= 300) b.errors++;
          else b.lat[kind].push(performance.now() - started);
        } catch {
          b.errors++;
        } finally {
          inFlight[kind]--;
        }
      };
      // The streams are open before the load starts and stay open to the end.
      let frames = 0;
      const count = (c: StreamClient) => {
        c.onData = () => void frames++;
        return c;
      };
      const sockets = await openMany(seed.tokens.length, 10, (i) =>
        openWebSocket(url, seed.tokens[i], [{ type: "subscribe", stream: "user" }, { type: "subscribe", stream: "public:local" }]).then(count),
      );
      const sse = await openMany(seed.tokens.length, 10, (i) => openEventStream(url, seed.tokens[i], "/api/v1/streaming/user").then(count));
      const timers = (Object.keys(RATES) as Kind[]).map((kind) => setInterval(() => void send(kind), 1000 / RATES[kind]));
      const sampler = setInterval(() => {
        const v = rssMb(pid);
        if (v !== null) bucket(performance.now() - t0).rss.push(v);
      }, 5000);
      console.error(`soak: ${minutes} min of mixed load, ${sockets.length} WebSockets and ${sse.length} SSE streams open`);
      const split: (MemorySplit | null)[] = [];
      const f = (v: number | null | undefined) => (v === null || v === undefined ? "-" : v.toFixed(1));
      for (let m = 1; m <= minutes; m++) {
        await sleep(Math.max(0, t0 + m * 60_000 - performance.now()));
        const b = buckets[m - 1];
        const p99 = b?.lat.read.length ? quantile(b.lat.read, 0.99).toFixed(1) : "-";
        const mem = (split[m - 1] = await memorySplit(pid, dataDir).catch(() => null));
        console.error(
          `soak: minute ${m}: RSS ${b?.rss.length ? median(b.rss).toFixed(1) : "-"} MB, read p99 ${p99} ms, ${b?.requests ?? 0} requests, ${b?.errors ?? 0} errors; ` +
            `heap ${f(mem?.heapUsedMb)}/${f(mem?.heapTotalMb)} MB, external ${f(mem?.externalMb)} (buffers ${f(mem?.arrayBuffersMb)}), ` +
            `malloc [heap] ${f(mem?.brkHeapMb)}, other anon ${f(mem?.anonMmapMb)}, file ${f(mem?.fileMb)} MB, ${mem?.cachedStatements ?? "-"} statements; event loop blocked up to ${mem?.loopDelayMaxMs ?? "-"} ms; ` +
            `WAL ${f(mem?.walMb)} MB, ${mem?.commitSyncs ?? "-"} commit syncs, ${mem?.checkpoints ?? "-"} checkpoints (${mem?.partialCheckpoints ?? "-"} partial)`,
        );
      }
      for (const t of timers) clearInterval(t);
      clearInterval(sampler);
      while (inFlight.read + inFlight.post + inFlight.inbox > 0) await sleep(50);
      for (const c of [...sockets, ...sse]) c.close();

      const perMinute: Minute[] = buckets.slice(0, Math.round(durationMs / 60_000)).map((b, i) => {
        const all = [...b.lat.read, ...b.lat.post, ...b.lat.inbox];
        const p = (v: number[]) => (v.length ? quantile(v, 0.99) : null);
        return {
          minute: i + 1,
          rssMb: b.rss.length ? median(b.rss) : null,
          requests: b.requests,
          errors: b.errors,
          skipped: b.skipped,
          p99Ms: { read: p(b.lat.read), post: p(b.lat.post), inbox: p(b.lat.inbox), all: p(all) },
          memory: split[i] ?? null,
        };
      });
      const ref = Math.max(1, Math.round(minutes / 6));
      const first = perMinute[ref - 1];
      const last = perMinute[perMinute.length - 1];
      const drift = (a: number | null | undefined, b: number | null | undefined) => (a && b ? (b - a) / a : null);
      const memoryPair = (name: string, unit: string, pick: (m: MemorySplit) => number | null): Metric[] =>
        [first, last].map((m, i) => ({ name: `${name} at minute ${i ? minutes : ref}`, value: m?.memory ? pick(m.memory) : null, unit }));
      const metrics: Metric[] = [
        { name: "minutes of load", value: minutes, unit: "min" },
        { name: "reference minute (5 of 30)", value: ref, unit: "" },
        { name: `RSS at minute ${ref}`, value: first?.rssMb ?? null, unit: "MB" },
        { name: `RSS at minute ${minutes}`, value: last?.rssMb ?? null, unit: "MB" },
        { name: "RSS drift", value: drift(first?.rssMb, last?.rssMb), unit: "(fraction)" },
        // Where the RSS went (sampled at each minute's end): V8's heap, glibc's main arena, the rest.
        ...memoryPair("JS heap total", "MB", (x) => x.heapTotalMb),
        ...memoryPair("malloc [heap]", "MB", (x) => x.brkHeapMb),
        ...memoryPair("other anonymous memory", "MB", (x) => x.anonMmapMb),
        ...memoryPair("cached statements", "", (x) => x.cachedStatements),
        { name: `p99 at minute ${ref} (all requests)`, value: first?.p99Ms.all ?? null, unit: "ms" },
        { name: `p99 at minute ${minutes} (all requests)`, value: last?.p99Ms.all ?? null, unit: "ms" },
        { name: "p99 drift", value: drift(first?.p99Ms.all, last?.p99Ms.all), unit: "(fraction)" },
        { name: "read p99 drift", value: drift(first?.p99Ms.read, last?.p99Ms.read), unit: "(fraction)" },
        { name: "requests", value: perMinute.reduce((s, m) => s + m.requests, 0), unit: "" },
        { name: "errors (non-2xx or failed)", value: perMinute.reduce((s, m) => s + m.errors, 0), unit: "" },
        { name: "ticks skipped (in-flight cap reached)", value: perMinute.reduce((s, m) => s + m.skipped, 0), unit: "" },
        { name: "streams held open (WebSocket + SSE)", value: sockets.length + sse.length, unit: "" },
        { name: "stream frames received", value: frames, unit: "" },
      ];
      console.error(`soak: per minute ${JSON.stringify(perMinute)}`);
      return { metrics };
    },
    async teardown() {
      await host?.close();
    },
    checks(s: RunSummary): Check[] {
      const get = (name: string) => s.metrics.find((m) => m.name === name)?.value ?? null;
      const minutes = get("minutes of load") ?? 0;
      const ref = get("reference minute (5 of 30)") ?? 0;
      const span = `minute ${ref} → ${minutes}${minutes < 30 ? ` (a ${minutes}-minute run; the budget is for 30)` : ""}`;
      const check = (name: string, v: number | null, budget: number): Check =>
        v === null
          ? { name, ok: null, detail: "not measured" }
          : { name, ok: v < budget, detail: `${(v * 100).toFixed(1)}% over ${span}` };
      return [
        check(`RSS drift < ${RSS_BUDGET * 100}%`, get("RSS drift"), RSS_BUDGET),
        check(`p99 drift < ${P99_BUDGET * 100}%`, get("p99 drift"), P99_BUDGET),
        { name: "no failed requests", ok: get("errors (non-2xx or failed)") === 0, detail: `${get("errors (non-2xx or failed)")} of ${get("requests")}` },
      ];
    },
  };
}

export const soak = soakScenario();
