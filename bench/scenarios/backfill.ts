// Issue 19's backfill budgets, on loopback, with the default settings (per-host concurrency,
// rate and bounds included):
// - a 300-reply thread spread over 5 hosts is completed in < 5 s (from the context request
//   that starts it to the async refresh reading `finished`);
// - a follow backfill of 40 posts (Follow, the peer's Accept, the outbox read, the merge into
//   home) completes in < 2 s and adds < 20 MB RSS;
// - GET /api/v1/statuses/:id/context keeps p99 < 30 ms while a long backfill runs (a thread
//   of 2,000 replies on a slow host, read up to threadBackfillMaxPosts).
import { resolveAccountByUri } from "../../src/federation/resolve/accounts.ts";
import { resolveStatusByUri } from "../../src/federation/resolve/statuses.ts";
import { CLI_APP, ensureBuiltinApp, issueToken } from "../../src/services/tokens.ts";
import { createUser } from "../../src/services/users.ts";
import { type DocHost, startDocHost } from "../lib/doc-hosts.ts";
import { runLoad } from "../lib/load.ts";
import { PUBLIC, type BenchActor } from "../lib/peers.ts";
import { rssMb, sampleRss } from "../lib/rss.ts";
import { median } from "../lib/stats.ts";
import type { Check, Metric, RunSummary, Scenario, TargetResult } from "../scenario.ts";

const AS = "https://www.w3.org/ns/activitystreams";
const HOSTS = 5;
const REPLIES = 300;
const PAGE = 50;
const FOLLOW_POSTS = 40;
/** Threads and follow targets seeded: one per trial, up to this many. */
const RUNS = 3;
const SLOW_REPLIES = 2000;
/** Each slow reply's delay: 500 posts (threadBackfillMaxPosts), 2 at once, outlast the reads. */
const SLOW_MS = 300;
const SMALL_REPLIES = 10;
const GIVE_UP_MS = 60_000;

interface Seed {
  token: string;
  threads: string[];
  slowThread: string;
  /** A complete 10-reply remote thread: the context read while the long backfill runs. */
  smallThread: string;
  posters: string[];
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
// Recent: older remote posts nobody here interacted with are the storage budget's to prune.
const minutesAgo = (m: number) => new Date(Math.floor(Date.now() / 60_000) * 60_000 - m * 60_000).toISOString();

function note(author: BenchActor, n: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  const id = `${author.id}/statuses/${n}`;
  return {
    "@context": AS,
    id,
    type: "Note",
    attributedTo: author.id,
    content: `<p>post ${n}</p>`,
    published: minutesAgo(1),
    to: [PUBLIC],
    cc: [author.followers],
    // Mastodon's shape: an embedded first page, here without replies.
    replies: { id: `${id}/replies`, type: "Collection", first: { type: "CollectionPage", partOf: `${id}/replies`, items: [] } },
    ...extra,
  };
}

export function backfillScenario(): Scenario<Seed> {
  let hosts: DocHost[] = [];
  return {
    name: "backfill",
    description: `a ${REPLIES}-reply thread over ${HOSTS} hosts, a follow backfill of ${FOLLOW_POSTS} posts, context reads during a long backfill`,
    init: { allowPrivateAddresses: true },
    connections: 8,
    async seed(app) {
      hosts = await Promise.all(Array.from({ length: HOSTS }, () => startDocHost()));
      const peers = await Promise.all(hosts.map((h) => h.actor("peer")));
      const made = new Map<string, Record<string, unknown>>();
      for (const h of hosts) h.docs = (p) => made.get(`${h.origin}${p}`);
      const put = (doc: Record<string, unknown>) => made.set(doc.id as string, doc);

      // The measured threads: the root on host 0, replies round-robin over the hosts, the
      // root's `replies` paged by PAGE on host 0.
      const threads: string[] = [];
      for (let t = 0; t < RUNS; t++) {
        const rootId = `${peers[0].id}/statuses/t${t}`;
        const ids = Array.from({ length: REPLIES }, (_, i) => {
          const r = note(peers[i % HOSTS], `t${t}r${i}`, { inReplyTo: rootId, published: minutesAgo(REPLIES - i) });
          put(r);
          return r.id as string;
        });
        const pages = Math.ceil(REPLIES / PAGE);
        for (let p = 0; p < pages; p++) {
          const id = `${rootId}/replies?page=${p}`;
          put({ "@context": AS, id, type: "CollectionPage", partOf: `${rootId}/replies`, items: ids.slice(p * PAGE, (p + 1) * PAGE), ...(p + 1 < pages ? { next: `${rootId}/replies?page=${p + 1}` } : {}) });
        }
        put(note(peers[0], `t${t}`, { published: minutesAgo(REPLIES + 1), replies: { id: `${rootId}/replies`, type: "Collection", first: `${rootId}/replies?page=0` } }));
        threads.push(rootId);
      }

      // The long backfill: 2,000 replies on host 4, each answered after SLOW_MS.
      const slowRoot = `${peers[4].id}/statuses/slow`;
      const slowIds = Array.from({ length: SLOW_REPLIES }, (_, i) => {
        const r = note(peers[4], `s${i}`, { inReplyTo: slowRoot });
        put(r);
        return r.id as string;
      });
      put({ "@context": AS, id: `${slowRoot}/replies/all`, type: "CollectionPage", items: slowIds });
      put(note(peers[4], "slow", { replies: { id: `${slowRoot}/replies`, type: "Collection", first: `${slowRoot}/replies/all` } }));
      hosts[4].delay = (p) => (p.includes("/statuses/s") ? SLOW_MS : 0);

      // Follow targets on host 2: each with an outbox of FOLLOW_POSTS posts, Mastodon's pages of 20.
      const posters: string[] = [];
      for (let k = 0; k < RUNS; k++) {
        const poster = await hosts[2].actor(`poster${k}`);
        const items = Array.from({ length: FOLLOW_POSTS }, (_, i) => {
          // Each later target's posts are newer: its 40 are the top of home once merged.
          const n = note(poster, `p${i}`, { published: minutesAgo(1000 - k * 100 + i) });
          return { id: `${n.id}/activity`, type: "Create", actor: poster.id, published: n.published, to: n.to, cc: n.cc, object: n };
        });
        const outbox = `${poster.id}/outbox`;
        put({ "@context": AS, id: outbox, type: "OrderedCollection", totalItems: FOLLOW_POSTS, first: `${outbox}?page=true` });
        for (let p = 0; p < FOLLOW_POSTS / 20; p++) {
          const id = p === 0 ? `${outbox}?page=true` : `${outbox}?max_id=${p}&page=true`;
          put({ "@context": AS, id, type: "OrderedCollectionPage", partOf: outbox, orderedItems: items.slice(p * 20, (p + 1) * 20), ...(p + 1 < FOLLOW_POSTS / 20 ? { next: `${outbox}?max_id=${p + 1}&page=true` } : {}) });
        }
        const account = await resolveAccountByUri(app, poster.id);
        if (!account) throw new Error(`seed: ${poster.id} did not resolve`);
        posters.push(account.id);
      }

      // The small thread on host 3, stored here as the inbox would have received it.
      const smallRoot = `${peers[3].id}/statuses/small`;
      put(note(peers[3], "small", { published: minutesAgo(30) }));
      const small = Array.from({ length: SMALL_REPLIES }, (_, i) => {
        const r = note(peers[i % HOSTS], `small${i}`, { inReplyTo: smallRoot, published: minutesAgo(29 - i) });
        put(r);
        return r.id as string;
      });

      const { user } = await createUser(app, { username: "reader", email: "reader@bench.test", password: "bench password 1" });
      const cli = ensureBuiltinApp(app, CLI_APP);
      const { token } = issueToken(app, { userId: user.id, applicationId: cli.id, scopes: ["read", "write", "follow"] });
      const stored = async (uri: string) => {
        const s = await resolveStatusByUri(app, uri);
        if (!s) throw new Error(`seed: ${uri} did not resolve`);
        return s.id;
      };
      const smallThread = await stored(smallRoot);
      for (const uri of small) await stored(uri);
      return { token, threads: await Promise.all(threads.map(stored)), slowThread: await stored(slowRoot), smallThread, posters };
    },
    targets: () => [],
    async measure({ url, pid, seed, trials, seconds, connections }) {
      const auth = { authorization: `Bearer ${seed.token}` };
      const api = async (method: string, path: string) => {
        const res = await fetch(url + path, { method, headers: auth });
        const body = await res.json();
        if (!res.ok) throw new Error(`${method} ${path} → ${res.status} ${JSON.stringify(body)}`);
        return { body, headers: res.headers };
      };
      const refreshOf = (h: Headers) => /id="([^"]+)"/.exec(h.get("mastodon-async-refresh") ?? "")?.[1];
      /** Polls the refresh until finished: its result_count, or null on timeout. */
      const finished = async (id: string) => {
        const deadline = performance.now() + GIVE_UP_MS;
        for (;;) {
          const { body } = await api("GET", `/api/v1_alpha/async_refreshes/${id}`);
          if (body.async_refresh.status === "finished") return body.async_refresh.result_count as number;
          if (performance.now() > deadline) return null;
          await sleep(10);
        }
      };
      const runs = Math.min(trials, RUNS);
      const metrics: Metric[] = [];

      // 1. The 300-reply thread over 5 hosts.
      const threadS: number[] = [];
      const threadCounts: number[] = [];
      for (let t = 0; t < runs; t++) {
        console.error(`backfill: thread ${t + 1}/${runs}`);
        const start = performance.now();
        const { headers } = await api("GET", `/api/v1/statuses/${seed.threads[t]}/context`);
        const id = refreshOf(headers);
        if (!id) throw new Error("the context request started no refresh");
        const count = await finished(id);
        if (count === null) break;
        threadS.push((performance.now() - start) / 1000);
        threadCounts.push(count);
      }
      metrics.push({ name: `${REPLIES}-reply thread over ${HOSTS} hosts`, value: threadS.length === runs ? median(threadS) : null, unit: "s", trials: threadS });
      metrics.push({ name: "thread posts fetched", value: threadCounts.length ? Math.min(...threadCounts) : null, unit: "", trials: threadCounts });

      // 2. The follow backfill: from the follow request to its 40 posts in home.
      const followS: number[] = [];
      const followRss: number[] = [];
      for (let t = 0; t < runs; t++) {
        console.error(`backfill: follow ${t + 1}/${runs}`);
        await sleep(500);
        const before = rssMb(pid);
        const sampler = sampleRss(pid, 20);
        const start = performance.now();
        await api("POST", `/api/v1/accounts/${seed.posters[t]}/follow`);
        const deadline = start + GIVE_UP_MS;
        let got = 0;
        while (performance.now() < deadline) {
          const { body } = await api("GET", `/api/v1/timelines/home?limit=40`);
          got = (body as { account: { id: string } }[]).filter((s) => s.account.id === seed.posters[t]).length;
          if (got >= FOLLOW_POSTS) break;
          await sleep(10);
        }
        const max = sampler.stop();
        if (got < FOLLOW_POSTS) break;
        followS.push((performance.now() - start) / 1000);
        if (before !== null && max !== null) followRss.push(max - before);
      }
      metrics.push({ name: `follow backfill of ${FOLLOW_POSTS} posts`, value: followS.length === runs ? median(followS) : null, unit: "s", trials: followS });
      metrics.push({ name: "follow backfill RSS added", value: followRss.length ? Math.max(...followRss) : null, unit: "MB", trials: followRss });

      // 3. Context reads while a long backfill runs: a small thread (the budget) and the very
      // thread being backfilled (growing to 500 posts: figures for information).
      await sleep(1000);
      // First the same reads with no backfill running, as the baseline (its own refresh, of
      // ten posts, is done within a second).
      const targets: TargetResult[] = [];
      let slowId: string | undefined;
      let stillRunning = 0;
      for (const [name, id] of [
        ["context, no backfill running", seed.smallThread],
        ["context during backfill", seed.smallThread],
        ["context of the thread being backfilled", seed.slowThread],
      ] as const) {
        if (name === "context during backfill") {
          console.error("backfill: context reads during a long backfill");
          slowId = refreshOf((await api("GET", `/api/v1/statuses/${seed.slowThread}/context`)).headers);
        }
        const path = `/api/v1/statuses/${id}/context`;
        const samples = [];
        for (let t = 0; t < trials; t++) {
          samples.push(await runLoad(url, { name, path, headers: auth }, connections, seconds));
          const { body } = slowId ? await api("GET", `/api/v1_alpha/async_refreshes/${slowId}`) : { body: null };
          if (body?.async_refresh.status === "running") stillRunning++;
        }
        targets.push({
          name,
          method: "GET",
          path,
          status: 200,
          skipped: false,
          reqPerSec: median(samples.map((x) => x.reqPerSec)),
          p50Ms: median(samples.map((x) => x.p50Ms)),
          p99Ms: median(samples.map((x) => x.p99Ms)),
          non2xx: samples.reduce((n, x) => n + x.non2xx, 0),
          errors: samples.reduce((n, x) => n + x.errors, 0),
          bytesPerReq: median(samples.map((x) => x.bytesPerReq)),
          maxRssMb: null,
          trials: samples.map((x) => ({ reqPerSec: x.reqPerSec, p50Ms: x.p50Ms, p99Ms: x.p99Ms })),
        });
      }
      metrics.push({ name: "read trials ended with the backfill still running", value: stillRunning, unit: `of ${2 * trials}` });
      const base = targets[0].p99Ms, during = targets[1].p99Ms;
      if (base !== null && during !== null) metrics.push({ name: "context p99 during backfill / without", value: during / base, unit: "x" });
      return { targets, metrics };
    },
    async teardown() {
      await Promise.all(hosts.map((h) => h.close()));
      hosts = [];
    },
    checks(summary: RunSummary): Check[] {
      const get = (n: string) => summary.metrics.find((x) => x.name === n)?.value ?? null;
      const thread = get(`${REPLIES}-reply thread over ${HOSTS} hosts`);
      const posts = get("thread posts fetched");
      const follow = get(`follow backfill of ${FOLLOW_POSTS} posts`);
      const rss = get("follow backfill RSS added");
      const ctx = summary.targets.find((t) => t.name === "context during backfill");
      const check = (name: string, v: number | null, ok: (v: number) => boolean, detail: (v: number) => string): Check =>
        v === null ? { name, ok: null, detail: "not measured (did not finish)" } : { name, ok: ok(v), detail: detail(v) };
      return [
        check(`${REPLIES}-reply thread over ${HOSTS} hosts completed in < 5 s`, thread, (v) => v < 5, (v) => `${v.toFixed(2)} s (median)`),
        check(`every reply of the thread fetched`, posts, (v) => v === REPLIES, (v) => `${v} of ${REPLIES}`),
        check(`follow backfill of ${FOLLOW_POSTS} posts in < 2 s`, follow, (v) => v < 2, (v) => `${v.toFixed(2)} s (median)`),
        check(`follow backfill adds < 20 MB RSS`, rss, (v) => v < 20, (v) => `+${v.toFixed(1)} MB (max)`),
        check(`context p99 < 30 ms during a backfill`, ctx?.p99Ms ?? null, (v) => v < 30, (v) => `${v} ms p99 (median), ${ctx?.reqPerSec?.toFixed(0)} req/s`),
      ];
    },
  };
}

export const backfill = backfillScenario();
