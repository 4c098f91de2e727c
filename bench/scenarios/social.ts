// Issue 3's budgets: home timeline vs a static baseline of the same size, public timeline,
// notifications and POST /api/v1/statuses (fan-out running in the server's job runner).
// Issue 12's: the same home timeline read by a user with 20 active filters of 5 keywords each.
import { statSync, existsSync } from "node:fs";
import Database from "better-sqlite3";
import type { App } from "../../src/app.ts";
import { tx } from "../../src/db/db.ts";
import { createHttpApp } from "../../src/http/server.ts";
import { installReadCaches } from "../../src/main.ts";
import { localStatusUri, localStatusUrl } from "../../src/lib/urls.ts";
import { databasePath } from "../../src/services/init.ts";
import { createFilter } from "../../src/services/filters.ts";
import { CLI_APP, ensureBuiltinApp, issueToken } from "../../src/services/tokens.ts";
import { createUser } from "../../src/services/users.ts";
import { relativeThroughput } from "../lib/stats.ts";
import type { Check, RunSummary, Scenario, Target, TargetResult } from "../scenario.ts";

const USERS = 100;
const STATUSES = 100_000;
const FOLLOWEES = 50;
const FEED_MAX = 1000; // what the feed trim keeps per home (services/feeds.ts FEED_MAX_ITEMS)
const DAY = 86_400_000;
const WORDS = "the quick brown fox jumps over a lazy dog while small birds sing about federated timelines and tea".split(" ");
const FILTERS = 20;
const KEYWORDS_PER_FILTER = 5;
// Topics none of the seeded posts mention: the filters are matched on every post and hit none.
const TOPICS = [
  "spoiler", "crypto", "giveaway", "election", "football", "horoscope", "diet", "lottery", "celebrity", "stocks",
  "wrestling", "reality show", "eurovision", "royal family", "influencer", "nft", "casino", "tabloid", "gossip", "weightloss",
];

interface Seed {
  token: string;
  /** A second reader of user0's home timeline, with FILTERS filters. */
  filteredToken: string;
  homeBytes: number;
  dbBytesPer100k: number;
  dbBytesTotal: number;
}

/** Deterministic pseudo-random numbers, so every run seeds the same instance. */
function rng(seed: number): () => number {
  let x = seed >>> 0;
  return () => {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    return (x >>> 0) / 4294967296;
  };
}

function dbBytes(app: App): number {
  app.db.pragma("wal_checkpoint(TRUNCATE)");
  const file = databasePath(app.config.dataDir);
  return [file, `${file}-wal`].reduce((n, f) => n + (existsSync(f) ? statSync(f).size : 0), 0);
}

/** Users through the real service; statuses, follows and feeds bulk-inserted in big transactions. */
async function seedInstance(app: App): Promise<{ token: string; userIds: string[]; usernames: string[] }> {
  const cli = ensureBuiltinApp(app, CLI_APP);
  const userIds: string[] = [];
  const usernames: string[] = [];
  let token = "";
  const made = await Promise.all(
    Array.from({ length: USERS }, (_, i) =>
      createUser(app, { username: `user${i}`, email: `user${i}@bench.test`, password: "bench password 1" }),
    ),
  );
  for (const [i, { user, account }] of made.entries()) {
    userIds.push(account.id);
    usernames.push(account.username);
    const t = issueToken(app, { userId: user.id, applicationId: cli.id, scopes: ["read", "write", "follow", "push"] });
    if (i === 0) token = t.token;
  }
  return { token, userIds, usernames };
}

function seedSocialGraph(app: App, userIds: string[]): Map<number, number[]> {
  const rand = rng(42);
  const followersOf = new Map<number, number[]>();
  const now = app.now();
  const db = app.db;
  const follow = db.prepare(
    `INSERT INTO follows (id, account_id, target_account_id, uri, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?)`,
  );
  const note = db.prepare(
    `INSERT INTO notifications (id, account_id, from_account_id, type, created_at) VALUES (?, ?, ?, 'follow', ?)`,
  );
  tx(db, () => {
    for (let a = 0; a < userIds.length; a++) {
      const targets = new Set<number>();
      while (targets.size < FOLLOWEES) {
        const b = Math.floor(rand() * userIds.length);
        if (b !== a) targets.add(b);
      }
      for (const b of targets) {
        const id = app.ids.next();
        follow.run(BigInt(id), BigInt(userIds[a]), BigInt(userIds[b]), `${app.baseUrl}/follows/${id}`, now, now);
        note.run(BigInt(app.ids.next()), BigInt(userIds[b]), BigInt(userIds[a]), now);
        if (!followersOf.has(b)) followersOf.set(b, []);
        followersOf.get(b)!.push(a);
      }
    }
    db.exec(`UPDATE accounts SET
      following_count = (SELECT count(*) FROM follows WHERE account_id = accounts.id),
      followers_count = (SELECT count(*) FROM follows WHERE target_account_id = accounts.id)`);
  });
  return followersOf;
}

function seedStatuses(app: App, userIds: string[], usernames: string[], followersOf: Map<number, number[]>): void {
  const rand = rng(7);
  const db = app.db;
  const start = app.now() - 30 * DAY;
  const step = Math.floor((30 * DAY) / STATUSES);
  const status = db.prepare(
    `INSERT INTO statuses (id, account_id, local, uri, url, text, content, visibility, language, conversation_id, created_at, updated_at)
     VALUES (?, ?, 1, ?, ?, ?, ?, ?, 'en', ?, ?, ?)`,
  );
  const conversation = db.prepare("INSERT INTO conversations (id, created_at) VALUES (?, ?)");
  const home = db.prepare("INSERT INTO home_feeds (account_id, status_id) VALUES (?, ?)");
  const fav = db.prepare("INSERT INTO favourites (id, account_id, status_id, created_at) VALUES (?, ?, ?, ?)");
  const favNote = db.prepare(
    `INSERT INTO notifications (id, account_id, from_account_id, type, status_id, created_at) VALUES (?, ?, ?, 'favourite', ?, ?)`,
  );
  // Status i is the i-th oldest. Which homes keep it is decided newest first (the trim keeps
  // each home's newest FEED_MAX entries); rows are then written oldest first, in id order as
  // a live server writes them, so the B-trees fill like a real database's.
  const authorOf = (i: number) => i % userIds.length;
  const homeOwners: number[][] = new Array(STATUSES);
  const homeCount = new Array<number>(userIds.length).fill(0);
  for (let i = STATUSES - 1; i >= 0; i--) {
    const owners: number[] = [];
    for (const owner of [authorOf(i), ...(followersOf.get(authorOf(i)) ?? [])]) {
      if (homeCount[owner] < FEED_MAX) {
        owners.push(owner);
        homeCount[owner]++;
      }
    }
    homeOwners[i] = owners;
  }
  const BATCH = 10_000;
  for (let done = 0; done < STATUSES; done += BATCH) {
    tx(db, () => {
      for (let i = done; i < Math.min(done + BATCH, STATUSES); i++) {
        const ms = start + i * step;
        const id = ((BigInt(ms) << 16n) | BigInt(i & 0xffff)).toString();
        const author = authorOf(i);
        const words = Array.from({ length: 8 + Math.floor(rand() * 25) }, () => WORDS[Math.floor(rand() * WORDS.length)]).join(" ");
        const r = rand();
        const visibility = r < 0.8 ? "public" : r < 0.95 ? "unlisted" : "private";
        conversation.run(BigInt(id), ms);
        status.run(
          BigInt(id), BigInt(userIds[author]),
          localStatusUri(app.baseUrl, usernames[author], id), localStatusUrl(app.baseUrl, usernames[author], id),
          words, `<p>${words}</p>`, visibility, BigInt(id), ms, ms,
        );
        for (const owner of homeOwners[i]) home.run(BigInt(userIds[owner]), BigInt(id));
        // user0's recent posts get favourites from its followers (and the notifications).
        if (author === 0 && i >= STATUSES - 20_000 && visibility !== "private") {
          for (const f of (followersOf.get(0) ?? []).slice(0, 3)) {
            fav.run(BigInt(app.ids.next()), BigInt(userIds[f]), BigInt(id), ms);
            favNote.run(BigInt(app.ids.next()), BigInt(userIds[0]), BigInt(userIds[f]), BigInt(id), ms);
          }
        }
      }
    });
  }
  tx(db, () => {
    db.exec(`UPDATE accounts SET
      statuses_count = (SELECT count(*) FROM statuses WHERE account_id = accounts.id),
      last_status_at = (SELECT max(created_at) FROM statuses WHERE account_id = accounts.id)`);
    db.exec(`UPDATE statuses SET favourites_count = (SELECT count(*) FROM favourites f WHERE f.status_id = statuses.id)
             WHERE id IN (SELECT status_id FROM favourites)`);
  });
}

/**
 * A reader whose home feed is a copy of user0's, with FILTERS filters of KEYWORDS_PER_FILTER
 * keywords each (every action, whole-word and substring keywords), made through the service.
 */
async function seedFilteredReader(app: App, user0: string): Promise<string> {
  const { user, account } = await createUser(app, { username: "filtered0", email: "filtered0@bench.test", password: "bench password 1" });
  app.db.prepare("INSERT INTO home_feeds (account_id, status_id) SELECT ?, status_id FROM home_feeds WHERE account_id = ?").run(BigInt(account.id), BigInt(user0));
  const actions = ["warn", "hide", "blur"];
  for (let i = 0; i < FILTERS; i++) {
    const topic = TOPICS[i];
    createFilter(app, account.id, {
      title: `No ${topic}`,
      context: i % 2 ? ["home", "notifications", "public"] : ["home", "thread"],
      filterAction: actions[i % actions.length],
      keywords: Array.from({ length: KEYWORDS_PER_FILTER }, (_, k) => ({
        keyword: [topic, `${topic}s`, `#${topic.replace(/ /g, "")}`, `${topic} news`, `anti-${topic}`][k],
        wholeWord: k % 2 === 0,
      })),
    });
  }
  const cli = ensureBuiltinApp(app, CLI_APP);
  return issueToken(app, { userId: user.id, applicationId: cli.id, scopes: ["read", "write", "follow", "push"] }).token;
}

/** Size of user0's first home page, rendered in-process by the real route. */
async function homePageBytes(app: App, token: string): Promise<number> {
  installReadCaches(app);
  const http = createHttpApp(app);
  const res = await http.h3.fetch(new Request(`${app.baseUrl}/api/v1/timelines/home`, { headers: { authorization: `Bearer ${token}` } }));
  const body = await res.arrayBuffer();
  return res.ok ? body.byteLength : 0;
}

/**
 * Fan-outs still waiting when the server stopped, right after the POST load (the server's
 * SIGTERM lets running jobs finish but starts none). POST throughput only counts if the
 * job runner kept up with it, rather than leaving a backlog behind.
 */
function pendingFanouts(dataDir: string): number | null {
  const file = databasePath(dataDir);
  if (!existsSync(file)) return null;
  const db = new Database(file, { readonly: true });
  try {
    return Number((db.prepare("SELECT count(*) AS n FROM jobs WHERE name = 'status.fanout'").get() as { n: number }).n);
  } finally {
    db.close();
  }
}

function ratioCheck(name: string, t: TargetResult | undefined, base: TargetResult | undefined, min: number): Check {
  const r = relativeThroughput(t, base);
  if (r === null || !t?.reqPerSec || !base?.reqPerSec) return { name, ok: null, detail: `not measured (status ${t?.status ?? "?"})` };
  const how = t.trials ? " (median of the trials' ratios)" : "";
  return { name, ok: r >= min, detail: `${Math.round(t.reqPerSec)} / ${Math.round(base.reqPerSec)}: ${(r * 100).toFixed(0)}%${how}` };
}

function p99Check(name: string, t: TargetResult | undefined, maxMs: number): Check {
  return t?.p99Ms == null ? { name, ok: null, detail: "not measured" } : { name, ok: t.p99Ms < maxMs, detail: `${t.p99Ms} ms` };
}

export function socialScenario(): Scenario<Seed> {
  let seeded: Seed | undefined;
  let dataDir: string | undefined;
  return {
    name: "social",
    description: `${USERS} users, ${STATUSES} statuses, ${FOLLOWEES} followees each: timelines, notifications, posting`,
    async seed(app) {
      dataDir = app.config.dataDir;
      const { token, userIds, usernames } = await seedInstance(app);
      const before = dbBytes(app);
      const followersOf = seedSocialGraph(app, userIds);
      seedStatuses(app, userIds, usernames, followersOf);
      const filteredToken = await seedFilteredReader(app, userIds[0]);
      app.db.exec("ANALYZE");
      const total = dbBytes(app);
      seeded = {
        token,
        filteredToken,
        homeBytes: await homePageBytes(app, token),
        dbBytesTotal: total,
        dbBytesPer100k: Math.round(((total - before) * 100_000) / STATUSES),
      };
      return seeded;
    },
    targets({ token, filteredToken, homeBytes }): Target[] {
      const auth = { authorization: `Bearer ${token}` };
      return [
        { name: "baseline (static JSON, home size)", path: `/api/v1/_bench/static/${homeBytes || 20000}`, baseline: true },
        { name: "home timeline", path: "/api/v1/timelines/home", headers: auth },
        { name: `home timeline, ${FILTERS} filters`, path: "/api/v1/timelines/home", headers: { authorization: `Bearer ${filteredToken}` } },
        { name: "public timeline", path: "/api/v1/timelines/public", headers: auth },
        { name: "notifications", path: "/api/v1/notifications", headers: auth },
        {
          name: "POST status",
          method: "POST",
          path: "/api/v1/statuses",
          headers: { ...auth, "content-type": "application/json" },
          body: JSON.stringify({ status: "Benchmarking the #fediverse with a short post" }),
        },
      ];
    },
    checks(s: RunSummary): Check[] {
      const find = (n: string) => s.targets.find((t) => t.name === n);
      const base = s.targets.find((t) => t.name.startsWith("baseline"));
      const home = find("home timeline");
      const post = find("POST status");
      const filtered = find(`home timeline, ${FILTERS} filters`);
      const out: Check[] = [ratioCheck("home timeline >= 40% of baseline req/s", home, base, 0.4)];
      out.push(p99Check("home timeline p99 < 50 ms", home, 50));
      out.push(ratioCheck(`home timeline with ${FILTERS} filters >= 85% of home timeline req/s`, filtered, home, 0.85));
      out.push(p99Check(`home timeline with ${FILTERS} filters p99 < 50 ms`, filtered, 50));
      out.push(
        post?.reqPerSec == null
          ? { name: "POST status >= 300/s", ok: null, detail: `not measured (status ${post?.status ?? "?"})` }
          : { name: "POST status >= 300/s", ok: post.reqPerSec >= 300, detail: `${Math.round(post.reqPerSec)}/s` },
      );
      const pending = post?.reqPerSec && dataDir ? pendingFanouts(dataDir) : null;
      out.push(
        pending === null || !post?.reqPerSec
          ? { name: "POST status: fan-out kept up (< 1 s of posts pending at the end)", ok: null, detail: "not measured" }
          : {
              name: "POST status: fan-out kept up (< 1 s of posts pending at the end)",
              ok: pending < post.reqPerSec,
              detail: `${pending} status.fanout jobs pending`,
            },
      );
      if (seeded) {
        const mb = (b: number) => `${(b / 1048576).toFixed(1)} MB`;
        out.push({
          name: "database size per 100k statuses (recorded)",
          ok: true,
          detail: `${mb(seeded.dbBytesPer100k)} (whole seeded database ${mb(seeded.dbBytesTotal)}; home page ${seeded.homeBytes} B)`,
        });
      }
      return out;
    },
  };
}

export const social = socialScenario();
