// Issue 4's delivery budget: one post by an account with 1,000 remote followers on 100
// instances reaches all 100 shared inboxes in under 2 s. A sink plays the 100 instances on
// 127.0.0.2 … 127.0.0.101 and timestamps each arrival; the clock starts when
// POST /api/v1/statuses has answered (the post is committed, its jobs queued).
import { tx } from "../../src/db/db.ts";
import { upsertRemoteAccount } from "../../src/federation/resolve/accounts.ts";
import { parseApActor } from "../../src/federation/parse/actor.ts";
import { followAccount } from "../../src/services/follows.ts";
import { CLI_APP, ensureBuiltinApp, issueToken } from "../../src/services/tokens.ts";
import { createUser } from "../../src/services/users.ts";
import { type Account, findAccountById } from "../../src/storage/accounts.ts";
import { actorDoc, rsaKey, type Sink, startSink } from "../lib/peers.ts";
import { median } from "../lib/stats.ts";
import type { Check, Metric, RunSummary, Scenario } from "../scenario.ts";

const INSTANCES = 100;
const FOLLOWERS_PER_INSTANCE = 10;
const BUDGET_S = 2;
/** A run that has not drained by then is reported as such rather than waited for. */
const GIVE_UP_MS = 30_000;

interface Seed {
  token: string;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export function deliveryScenario(): Scenario<Seed> {
  let sink: Sink | undefined;
  return {
    name: "delivery",
    description: `one public post by an account with ${INSTANCES * FOLLOWERS_PER_INSTANCE} remote followers on ${INSTANCES} instances (shared inboxes)`,
    // The followers' instances are loopback addresses.
    init: { allowPrivateAddresses: true },
    async seed(app) {
      sink = await startSink(INSTANCES);
      const { user, account } = await createUser(app, { username: "poster", email: "poster@bench.test", password: "bench password 1" });
      const cli = ensureBuiltinApp(app, CLI_APP);
      const { token } = issueToken(app, { userId: user.id, applicationId: cli.id, scopes: ["read", "write", "follow", "push"] });
      // The followers' keys are never used (nobody verifies them here): one key serves all.
      const { publicKeyPem } = await rsaKey();
      tx(app.db, () => {
        for (const host of sink!.hosts) {
          for (let k = 0; k < FOLLOWERS_PER_INSTANCE; k++) {
            // The same services as an incoming Follow: store the actor, then follow.
            const remote: Account = upsertRemoteAccount(app, parseApActor(actorDoc(`http://${host}`, `follower${k}`, publicKeyPem)), host);
            followAccount(app, remote, account, {});
          }
        }
        // The follows are old news: the 1,000 Accepts they queued went out long ago, and must
        // not be delivered during the measurement.
        app.db.prepare("DELETE FROM jobs WHERE queue = 'federation'").run();
      });
      const followers = findAccountById(app.db, account.id)?.followersCount;
      if (followers !== INSTANCES * FOLLOWERS_PER_INSTANCE) throw new Error(`seeded ${followers} followers, expected ${INSTANCES * FOLLOWERS_PER_INSTANCE}`);
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
        const body = (await res.json()) as { uri?: string; error?: string };
        if (!res.ok || !body.uri) throw new Error(`POST /api/v1/statuses → ${res.status} ${JSON.stringify(body)}`);
        return { uri: body.uri, answeredAt: performance.now() };
      };
      /** Waits until every instance has the Create of `uri`; the arrivals, or null on timeout. */
      const drain = async (uri: string) => {
        const deadline = performance.now() + GIVE_UP_MS;
        for (;;) {
          const got = s.arrivals.filter((a) => a.type === "Create" && a.object === uri);
          if (new Set(got.map((a) => a.host)).size >= INSTANCES) return got;
          if (performance.now() > deadline) {
            console.error(`delivery: only ${new Set(got.map((a) => a.host)).size}/${INSTANCES} instances reached after ${GIVE_UP_MS} ms`);
            return null;
          }
          await sleep(5);
        }
      };

      // Warm-up: the first delivery to each instance opens its connection and loads the key.
      console.error("delivery: warm-up post");
      const warm = await post("Warming up the delivery path");
      await drain(warm.uri);

      const runs: { drainS: number; perSecond: number; total: number; shared: number; unsigned: number }[] = [];
      for (let trial = 1; trial <= trials; trial++) {
        console.error(`delivery: post ${trial}/${trials}`);
        const before = s.arrivals.length;
        const { uri, answeredAt } = await post(`Delivery benchmark post ${trial}`);
        const got = await drain(uri);
        if (!got) return { metrics: [{ name: "time to drain (100 shared inboxes)", value: null, unit: "s" }] };
        const last = Math.max(...got.map((a) => a.at));
        const drainS = (last - answeredAt) / 1000;
        // Anything else that arrived meanwhile (a personal inbox would mean no shared-inbox dedupe).
        const all = s.arrivals.slice(before).filter((a) => a.object === uri);
        runs.push({
          drainS,
          perSecond: got.length / drainS,
          total: all.length,
          shared: all.filter((a) => a.path === "/inbox").length,
          unsigned: all.filter((a) => !a.signed).length,
        });
      }
      const m = (name: string, f: (r: (typeof runs)[number]) => number, unit: string): Metric => ({
        name,
        value: median(runs.map(f)),
        unit,
        trials: runs.map(f),
      });
      return {
        metrics: [
          m("time to drain (100 shared inboxes)", (r) => r.drainS, "s"),
          m("deliveries per second", (r) => r.perSecond, "/s"),
          m("followers reached per second", (r) => (INSTANCES * FOLLOWERS_PER_INSTANCE) / r.drainS, "/s"),
          m("deliveries per post (all inboxes)", (r) => r.total, ""),
          m("deliveries to shared inboxes", (r) => r.shared, ""),
          m("unsigned deliveries", (r) => r.unsigned, ""),
          { name: "GET requests to the instances", value: s.gets, unit: "" },
        ],
      };
    },
    async teardown() {
      await sink?.close();
      sink = undefined;
    },
    checks(summary: RunSummary): Check[] {
      const get = (n: string) => summary.metrics.find((x) => x.name === n)?.value ?? null;
      const drain = get("time to drain (100 shared inboxes)");
      const total = get("deliveries per post (all inboxes)");
      const unsigned = get("unsigned deliveries");
      return [
        drain === null
          ? { name: `1,000 followers on 100 instances drained in < ${BUDGET_S} s`, ok: null, detail: "not measured (did not drain)" }
          : { name: `1,000 followers on 100 instances drained in < ${BUDGET_S} s`, ok: drain < BUDGET_S, detail: `${drain.toFixed(2)} s (median)` },
        total === null
          ? { name: "one delivery per instance (shared inbox)", ok: null, detail: "not measured" }
          : { name: "one delivery per instance (shared inbox)", ok: total === INSTANCES && get("deliveries to shared inboxes") === INSTANCES, detail: `${total} deliveries, ${get("deliveries to shared inboxes")} to /inbox` },
        unsigned === null
          ? { name: "every delivery signed", ok: null, detail: "not measured" }
          : { name: "every delivery signed", ok: unsigned === 0, detail: `${unsigned} unsigned` },
      ];
    },
  };
}

export const delivery = deliveryScenario();
