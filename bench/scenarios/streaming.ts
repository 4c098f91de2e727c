// Issue 11's streaming budgets: 1,000 idle WebSockets + 1,000 SSE streams add < 60 MB RSS; a
// public post reaches 1,000 subscribed WebSockets with p99 < 150 ms from its POST response
// to the event's arrival; POST /api/v1/statuses keeps >= 80% of its rate while the 2,000
// connections are open (trials interleaved: without, then with, the connections).
import type { App } from "../../src/app.ts";
import { tx } from "../../src/db/db.ts";
import { followAccount } from "../../src/services/follows.ts";
import { CLI_APP, ensureBuiltinApp, issueToken } from "../../src/services/tokens.ts";
import { createUser } from "../../src/services/users.ts";
import { type Account, findAccountById, insertAccount } from "../../src/storage/accounts.ts";
import { insertUser } from "../../src/storage/users.ts";
import { localActorUrls } from "../../src/lib/urls.ts";
import { runLoad } from "../lib/load.ts";
import { rssMb } from "../lib/rss.ts";
import { median, quantile } from "../lib/stats.ts";
import { openEventStream, openMany, openWebSocket, type StreamClient } from "../lib/stream-clients.ts";
import type { Check, Metric, RunSummary, Scenario, Target } from "../scenario.ts";

/** Each user holds one WebSocket and one SSE stream, as a phone and a browser tab would. */
const USERS = 1000;
const WEBSOCKETS = 1000;
const EVENT_STREAMS = 1000;
/** Users following the poster: their 40 connections receive every post of the POST load. */
const FOLLOWERS = 20;
const LATENCY_POSTS = 30;
const LATENCY_GAP_MS = 100;
const GIVE_UP_MS = 10_000;
const SETTLE_MS = 3000;
const WRITE_PAUSE_MS = 4000;

interface Seed {
  tokens: string[];
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Median of a few RSS samples once the process has settled. */
async function settledRss(pid: number): Promise<number | null> {
  await sleep(SETTLE_MS);
  const samples: number[] = [];
  for (let i = 0; i < 5; i++) {
    const v = rssMb(pid);
    if (v !== null) samples.push(v);
    await sleep(200);
  }
  return samples.length ? median(samples) : null;
}

/** Users made through the service; the others are copies with its key pair (their keys are never used here). */
const REAL_USERS = 25;

async function seedUsers(app: App): Promise<Seed> {
  const cli = ensureBuiltinApp(app, CLI_APP);
  const made = await Promise.all(
    Array.from({ length: REAL_USERS }, (_, i) => createUser(app, { username: `user${i}`, email: `user${i}@bench.test`, password: null })),
  );
  const accounts: Account[] = made.map((m) => m.account);
  const userIds = made.map((m) => m.user.id);
  const keys = findAccountById(app.db, accounts[0].id)!;
  tx(app.db, () => {
    const now = app.now();
    for (let i = REAL_USERS; i < USERS; i++) {
      const id = app.ids.next();
      const username = `user${i}`;
      insertAccount(app.db, { id, username, ...localActorUrls(app.baseUrl, username), publicKeyPem: keys.publicKeyPem, privateKeyPem: keys.privateKeyPem, createdAt: now, updatedAt: now });
      const userId = app.ids.next();
      insertUser(app.db, { id: userId, accountId: id, email: `${username}@bench.test`, passwordHash: null, roleId: null, confirmedAt: now, approved: true, createdAt: now });
      accounts.push(findAccountById(app.db, id)!);
      userIds.push(userId);
    }
    for (let i = 1; i <= FOLLOWERS; i++) followAccount(app, accounts[i], accounts[0], {});
  });
  const tokens = userIds.map((userId) => issueToken(app, { userId, applicationId: cli.id, scopes: ["read", "write", "follow", "push"] }).token);
  return { tokens };
}

const postTarget = (token: string): Target => ({
  name: "POST status",
  method: "POST",
  path: "/api/v1/statuses",
  headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
  body: JSON.stringify({ status: "Benchmarking the #fediverse with a short post" }),
});

/** 1,000 WebSockets and 1,000 SSE streams on user streams (home and notifications), one of each per user. */
async function openConnections(url: string, tokens: string[]): Promise<{ ws: StreamClient[]; sse: StreamClient[] }> {
  const ws = await openMany(WEBSOCKETS, 50, (i) =>
    openWebSocket(url, tokens[i % USERS], [{ type: "subscribe", stream: "user" }]),
  );
  const sse = await openMany(EVENT_STREAMS, 50, (i) => openEventStream(url, tokens[i % USERS], "/api/v1/streaming/user"));
  return { ws, sse };
}

/**
 * Posts LATENCY_POSTS public statuses one by one while every WebSocket is subscribed to
 * `public`; returns each (post, socket) latency from the POST response to the event, in ms.
 */
async function publicLatencies(url: string, token: string, ws: StreamClient[]): Promise<{ latencies: number[]; missing: number }> {
  const arrivals = new Map<string, number[]>();
  const watch = (c: StreamClient) => {
    c.onData = (text, at) => {
      if (!text.startsWith('{"stream":["public"],"event":"update"')) return;
      const m = /\\"id\\":\\"(\d+)\\"/.exec(text);
      if (!m) return;
      let list = arrivals.get(m[1]);
      if (!list) arrivals.set(m[1], (list = []));
      list.push(at);
    };
  };
  for (const c of ws) {
    watch(c);
    c.send({ type: "subscribe", stream: "public" });
  }
  await sleep(500);
  const answered = new Map<string, number>();
  for (let i = 0; i < LATENCY_POSTS; i++) {
    const res = await fetch(`${url}/api/v1/statuses`, {
      method: "POST",
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
      body: JSON.stringify({ status: `Streaming latency probe ${i}`, visibility: "public" }),
    });
    const body = (await res.json()) as { id?: string };
    if (!res.ok || !body.id) throw new Error(`POST /api/v1/statuses → ${res.status} ${JSON.stringify(body)}`);
    answered.set(body.id, performance.now());
    await sleep(LATENCY_GAP_MS);
  }
  const deadline = performance.now() + GIVE_UP_MS;
  while ([...answered.keys()].some((id) => (arrivals.get(id)?.length ?? 0) < ws.length) && performance.now() < deadline) await sleep(100);
  const latencies: number[] = [];
  let missing = 0;
  for (const [id, at] of answered) {
    const got = arrivals.get(id) ?? [];
    missing += ws.length - got.length;
    // An event can beat the client's handling of the POST response: that counts as 0.
    for (const t of got) latencies.push(Math.max(0, t - at));
  }
  for (const c of ws) {
    c.onData = undefined;
    c.send({ type: "unsubscribe", stream: "public" });
  }
  return { latencies, missing };
}

export function streamingScenario(): Scenario<Seed> {
  return {
    name: "streaming",
    description: `${USERS} users, each with a WebSocket and an SSE user stream; ${FOLLOWERS} follow the poster; all WebSockets on \`public\` for the latency probe`,
    // Every connection comes from 127.0.0.1.
    serverEnv: { ROOST_STREAMING_MAX_PER_IP: String(WEBSOCKETS + EVENT_STREAMS + 100) },
    seed: seedUsers,
    targets: () => [],
    async measure({ url, pid, seed, seconds, warmup, connections, trials }) {
      const target = postTarget(seed.tokens[0]);
      const without: number[] = [];
      const withConns: number[] = [];
      let addedRss: number | null = null;
      let latency: { latencies: number[]; missing: number } | undefined;
      if (warmup > 0) {
        console.error(`POST status: warm-up ${warmup} s`);
        await runLoad(url, target, connections, warmup);
        await sleep(WRITE_PAUSE_MS);
      }
      for (let trial = 1; trial <= trials; trial++) {
        console.error(`POST status without streams: ${seconds} s (trial ${trial}/${trials})`);
        without.push((await runLoad(url, target, connections, seconds)).reqPerSec);
        await sleep(WRITE_PAUSE_MS);
        const before = trial === 1 ? await settledRss(pid) : null;
        console.error(`opening ${WEBSOCKETS} WebSockets and ${EVENT_STREAMS} SSE streams`);
        const open = await openConnections(url, seed.tokens);
        if (trial === 1) {
          const after = await settledRss(pid);
          addedRss = before !== null && after !== null ? after - before : null;
          console.error(`public post to ${WEBSOCKETS} subscribers: ${LATENCY_POSTS} posts`);
          latency = await publicLatencies(url, seed.tokens[0], open.ws);
          await sleep(WRITE_PAUSE_MS);
        }
        console.error(`POST status with ${WEBSOCKETS + EVENT_STREAMS} streams open: ${seconds} s (trial ${trial}/${trials})`);
        withConns.push((await runLoad(url, target, connections, seconds)).reqPerSec);
        for (const c of [...open.ws, ...open.sse]) c.close();
        await sleep(WRITE_PAUSE_MS);
      }
      const lat = latency?.latencies ?? [];
      const metrics: Metric[] = [
        { name: `added RSS, ${WEBSOCKETS} WS + ${EVENT_STREAMS} SSE idle`, value: addedRss, unit: "MB" },
        { name: "public post → event, p50", value: lat.length ? quantile(lat, 0.5) : null, unit: "ms" },
        { name: "public post → event, p99", value: lat.length ? quantile(lat, 0.99) : null, unit: "ms" },
        { name: "public post → event, samples", value: lat.length, unit: `(missing ${latency?.missing ?? "?"})` },
        { name: "POST status without streams", value: median(without), unit: "req/s", trials: without },
        { name: "POST status with 2,000 streams", value: median(withConns), unit: "req/s", trials: withConns },
        { name: "POST status ratio", value: median(withConns.map((w, i) => w / without[i])), unit: "", trials: withConns.map((w, i) => w / without[i]) },
      ];
      return { metrics };
    },
    checks(s: RunSummary): Check[] {
      const m = (prefix: string) => s.metrics.find((x) => x.name.startsWith(prefix));
      const rss = m("added RSS");
      const p99 = m("public post → event, p99");
      const samples = m("public post → event, samples");
      const ratio = m("POST status ratio");
      const missing = samples?.unit.match(/missing (\d+)/)?.[1];
      return [
        rss?.value == null
          ? { name: "2,000 idle streams add < 60 MB RSS", ok: null, detail: "not measured" }
          : { name: "2,000 idle streams add < 60 MB RSS", ok: rss.value < 60, detail: `${rss.value.toFixed(1)} MB` },
        p99?.value == null
          ? { name: "public post → 1,000 subscribers: p99 < 150 ms", ok: null, detail: "not measured" }
          : {
              name: "public post → 1,000 subscribers: p99 < 150 ms",
              ok: p99.value < 150 && missing === "0",
              detail: `${p99.value.toFixed(1)} ms over ${samples?.value} deliveries, ${missing ?? "?"} missing`,
            },
        ratio?.value == null
          ? { name: "POST status with 2,000 streams >= 80% of without", ok: null, detail: "not measured" }
          : { name: "POST status with 2,000 streams >= 80% of without", ok: ratio.value >= 0.8, detail: `${(ratio.value * 100).toFixed(0)}% (median of the trials' ratios)` },
      ];
    },
  };
}

export const streaming = streamingScenario();
