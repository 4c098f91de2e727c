// Issue 11's Web Push budget: 1,000 push subscriptions receive one notification each in < 5 s
// (local receivers). 1,000 users follow one poster with notifications on (`status` alerts) and
// each has a Web Push subscription on a push service played by a sink on 127.0.0.1, half in
// RFC 8291 aes128gcm and half in the legacy aesgcm. The clock starts when POST
// /api/v1/statuses has answered; it stops when the last of the 1,000 messages has arrived.
// Meanwhile a probe requests the static baseline route one request at a time: its latency is
// how long the server's event loop was busy (encryption in the pool, or not).
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { createECDH, randomBytes } from "node:crypto";
import { tx } from "../../src/db/db.ts";
import { followAccount } from "../../src/services/follows.ts";
import { subscribeToPush } from "../../src/services/push-subscriptions.ts";
import { CLI_APP, ensureBuiltinApp, issueToken } from "../../src/services/tokens.ts";
import { createUser } from "../../src/services/users.ts";
import { median, quantile } from "../lib/stats.ts";
import type { Check, Metric, RunSummary, Scenario } from "../scenario.ts";

const SUBSCRIBERS = 1000;
const BUDGET_S = 5;
const GIVE_UP_MS = 60_000;
const SCOPES = ["read", "write", "follow", "push"];

interface Arrival {
  at: number;
  path: string;
  encoding: string;
  bytes: number;
}

interface Sink {
  url: string;
  arrivals: Arrival[];
  close(): Promise<void>;
}

interface Seed {
  token: string;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function startSink(): Promise<Sink> {
  const arrivals: Arrival[] = [];
  const server: Server = createServer((req, res) => {
    let bytes = 0;
    req.on("data", (c: Buffer) => (bytes += c.length));
    req.on("end", () => {
      arrivals.push({ at: performance.now(), path: req.url ?? "", encoding: String(req.headers["content-encoding"]), bytes });
      res.writeHead(201).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    arrivals,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Latencies (ms) of back-to-back requests to the baseline route until `stop()`. */
function probe(url: string): { stop(): Promise<number[]> } {
  const samples: number[] = [];
  let running = true;
  const loop = (async () => {
    while (running) {
      const t = performance.now();
      try {
        const res = await fetch(`${url}/api/v1/_bench/static`, { signal: AbortSignal.timeout(10_000) });
        await res.arrayBuffer();
      } catch (e) {
        console.error(`push: probe failed: ${(e as Error).message}`);
      }
      samples.push(performance.now() - t);
      await sleep(2);
    }
  })();
  return {
    async stop() {
      running = false;
      await loop;
      return samples;
    },
  };
}

export function pushScenario(): Scenario<Seed> {
  let sink: Sink | undefined;
  return {
    name: "push",
    description: `one post by an account whose ${SUBSCRIBERS} followers (notifications on) each have a Web Push subscription on a local push service`,
    // The push service is on loopback.
    init: { allowPrivateAddresses: true },
    async seed(app) {
      sink = await startSink();
      const cli = ensureBuiltinApp(app, CLI_APP);
      const poster = await createUser(app, { username: "poster", email: "poster@bench.test", password: null });
      const token = issueToken(app, { userId: poster.user.id, applicationId: cli.id, scopes: SCOPES }).token;
      // Every subscriber shares one actor key (nobody federates here): 1,000 RSA key pairs would
      // take minutes of the pool's time. Users are still made by createUser.
      const key = await app.pool.run("generateKeyPair", {});
      const run = app.pool.run.bind(app.pool);
      app.pool.run = (<T>(task: string, payload: unknown) => (task === "generateKeyPair" ? Promise.resolve(key as T) : run<T>(task, payload))) as typeof app.pool.run;
      const users = await Promise.all(
        Array.from({ length: SUBSCRIBERS }, (_, i) => createUser(app, { username: `sub${i}`, email: `sub${i}@bench.test`, password: null })),
      );
      tx(app.db, () => {
        for (const [i, { user, account }] of users.entries()) {
          followAccount(app, account, poster.account, { notify: true });
          const t = issueToken(app, { userId: user.id, applicationId: cli.id, scopes: SCOPES });
          const ecdh = createECDH("prime256v1");
          ecdh.generateKeys();
          subscribeToPush(
            app,
            { userId: user.id, tokenId: t.id, token: t.token },
            { endpoint: `${sink!.url}/push/${i}`, p256dh: ecdh.getPublicKey().toString("base64url"), auth: randomBytes(16).toString("base64url"), standard: i % 2 === 0 },
            { alerts: { status: true, mention: true } },
          );
        }
      });
      return { token };
    },
    targets: () => [],
    async measure({ url, seed, trials }) {
      const s = sink!;
      const post = async (text: string) => {
        const res = await fetch(`${url}/api/v1/statuses`, {
          method: "POST",
          headers: { authorization: `Bearer ${seed.token}`, "content-type": "application/json" },
          body: JSON.stringify({ status: text, visibility: "public" }),
        });
        if (!res.ok) throw new Error(`POST /api/v1/statuses → ${res.status} ${await res.text()}`);
        await res.arrayBuffer();
        return performance.now();
      };
      /** Waits for SUBSCRIBERS arrivals after index `from`; null on timeout. */
      const drain = async (from: number) => {
        const deadline = performance.now() + GIVE_UP_MS;
        while (s.arrivals.length - from < SUBSCRIBERS) {
          if (performance.now() > deadline) {
            console.error(`push: only ${s.arrivals.length - from}/${SUBSCRIBERS} messages after ${GIVE_UP_MS} ms`);
            return null;
          }
          await sleep(5);
        }
        return s.arrivals.slice(from, from + SUBSCRIBERS);
      };

      const idle = probe(url);
      await sleep(1000);
      const idleSamples = await idle.stop();

      const runs: { drainS: number; distinct: number; standard: number; probeMax: number; probeP99: number }[] = [];
      for (let trial = 0; trial <= trials; trial++) {
        // Trial 0 is the warm-up (connections, JIT, the worker pool's threads).
        console.error(trial === 0 ? "push: warm-up post" : `push: post ${trial}/${trials}`);
        const before = s.arrivals.length;
        const p = probe(url);
        const answeredAt = await post(`Push benchmark post ${trial}`);
        const got = await drain(before);
        console.error(`push: ${s.arrivals.length - before} messages in ${((performance.now() - answeredAt) / 1000).toFixed(2)} s`);
        const samples = await p.stop();
        if (!got) return { metrics: [{ name: `time to push ${SUBSCRIBERS} notifications`, value: null, unit: "s" }] };
        await sleep(200);
        if (trial === 0) continue;
        const last = Math.max(...got.map((a) => a.at));
        runs.push({
          drainS: (last - answeredAt) / 1000,
          distinct: new Set(got.map((a) => a.path)).size,
          standard: got.filter((a) => a.encoding === "aes128gcm").length,
          probeMax: Math.max(...samples),
          probeP99: quantile(samples, 0.99),
        });
      }
      const m = (name: string, f: (r: (typeof runs)[number]) => number, unit: string): Metric => ({ name, value: median(runs.map(f)), unit, trials: runs.map(f) });
      return {
        metrics: [
          m(`time to push ${SUBSCRIBERS} notifications`, (r) => r.drainS, "s"),
          m("push messages per second", (r) => SUBSCRIBERS / r.drainS, "/s"),
          m("subscriptions reached per post", (r) => r.distinct, ""),
          m("aes128gcm messages per post", (r) => r.standard, ""),
          { name: "probe latency idle, p99", value: quantile(idleSamples, 0.99), unit: "ms" },
          m("probe latency during the burst, p99", (r) => r.probeP99, "ms"),
          m("probe latency during the burst, max", (r) => r.probeMax, "ms"),
          { name: "messages beyond one per subscription", value: s.arrivals.length - (trials + 1) * SUBSCRIBERS, unit: "" },
        ],
      };
    },
    async teardown() {
      await sink?.close();
      sink = undefined;
    },
    checks(summary: RunSummary): Check[] {
      const get = (n: string) => summary.metrics.find((x) => x.name === n)?.value ?? null;
      const drain = get(`time to push ${SUBSCRIBERS} notifications`);
      const distinct = get("subscriptions reached per post");
      const extra = get("messages beyond one per subscription");
      const name = `${SUBSCRIBERS} push subscriptions receive one notification each in < ${BUDGET_S} s`;
      return [
        drain === null ? { name, ok: null, detail: "not measured (did not drain)" } : { name, ok: drain < BUDGET_S, detail: `${drain.toFixed(2)} s (median)` },
        distinct === null || extra === null
          ? { name: "each subscription exactly once", ok: null, detail: "not measured" }
          : { name: "each subscription exactly once", ok: distinct === SUBSCRIBERS && extra === 0, detail: `${distinct} distinct per post, ${extra} extra` },
      ];
    },
  };
}

export const push = pushScenario();
