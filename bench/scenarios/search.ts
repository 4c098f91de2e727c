// Issue 15's search budgets: 100k searchable statuses by 10k accounts; status search p99 < 20 ms
// and account prefix search p99 < 10 ms at concurrency 8; heap added by the indexes <= 1 KB per
// indexed status; cold start to a served search < 1 s; `roost search reindex` of 100k < 60 s.
// It also measures MiniSearch on the same documents in the bench process: the comparison that
// src/search/DESIGN.md records (why statuses live in FTS5).
import { spawn } from "node:child_process";
import { rmSync } from "node:fs";
import { performance } from "node:perf_hooks";
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import MiniSearch from "minisearch";
import type { App } from "../../src/app.ts";
import { tx } from "../../src/db/db.ts";
import { loadConfig } from "../../src/config/config.ts";
import { localStatusUri, localStatusUrl } from "../../src/lib/urls.ts";
import { closeApp, createApp, startSearch, startServer } from "../../src/main.ts";
import { rebuildSearchIndexes } from "../../src/search/rebuild.ts";
import { findAccounts } from "../../src/services/search.ts";
import { searchStatuses } from "../../src/services/status-search.ts";
import { CLI_APP, ensureBuiltinApp, issueToken } from "../../src/services/tokens.ts";
import { createUser } from "../../src/services/users.ts";
import { findAccountById } from "../../src/storage/accounts.ts";
import { copyDataDir } from "../lib/data-copy.ts";
import { freePort, startServerProcess } from "../lib/server-process.ts";
import { median, quantile } from "../lib/stats.ts";
import type { Check, Metric, RunSummary, Scenario, Target, TargetResult } from "../scenario.ts";

// A smaller instance for a quick run: ROOST_BENCH_SEARCH_STATUSES=20000 ROOST_BENCH_SEARCH_ACCOUNTS=2000
// (with --trials 1 --seconds 3). The budgets are stated for the defaults.
const LOCAL_USERS = 20;
const ACCOUNTS = Math.max(LOCAL_USERS + 8, Number(process.env.ROOST_BENCH_SEARCH_ACCOUNTS ?? 10_000));
const STATUSES = Math.max(1, Number(process.env.ROOST_BENCH_SEARCH_STATUSES ?? 100_000));
const DOMAINS = 50;
const VOCABULARY = 5000;
const CONNECTIONS = 8;
const DAY = 86_400_000;
const STATUS_P99_MS = 20;
const ACCOUNT_P99_MS = 10;
const HEAP_BYTES_PER_STATUS = 1024;
const COLD_START_MS = 1000;
const REINDEX_S = 60;

const FIRST = ["Alice", "Alina", "Bob", "Carla", "Dmitri", "Elena", "Farid", "Greta", "Hiro", "Ines", "Jonas", "Kemal", "Lucia", "Marek", "Nadia", "Olu", "Priya", "Quentin", "Rosa", "Sven"];
const LAST = ["Anders", "Berg", "Costa", "Diaz", "Eklund", "Fischer", "Garcia", "Holm", "Ito", "Jensen", "Kowalski", "Larsen", "Moreau", "Novak", "Okafor", "Petrov", "Rossi", "Silva", "Tanaka", "Weber"];
// Made-up words (no final s, which the porter stemmer would strip) with Zipf-like frequencies.
const SYLLABLES = ["ka", "lo", "mi", "ra", "ten", "vod", "bel", "dur", "fin", "gal", "hor", "jun", "lem", "nop", "quil", "sar", "tum", "wex", "yor", "zan"];
const word = (rank: number) => {
  let n = rank + 400;
  let w = "";
  while (n > 0) {
    w += SYLLABLES[n % SYLLABLES.length];
    n = Math.floor(n / SYLLABLES.length);
  }
  return w;
};

/** The queries loaded and compared: a word in a third of the posts, a rarer one, two words, a phrase, an author. */
function statusQueries(author: string): Record<string, string> {
  return {
    "common word": word(4),
    "rare word": word(2000),
    "two words": `${word(30)} ${word(200)}`,
    phrase: `"${word(1)} ${word(2)}"`,
    "from: and a word": `from:${author} ${word(50)}`,
  };
}
const ACCOUNT_PREFIX = "ali";

interface Seed {
  token: string;
  /** A remote author's handle, for `from:`. */
  author: string;
  viewerId: string;
  indexed: number;
  buildSeconds: number;
  indexBytes: number;
}

function rng(seed: number): () => number {
  let x = seed >>> 0;
  return () => {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    return (x >>> 0) / 4294967296;
  };
}

function zipf(rand: () => number): () => number {
  const cumulative: number[] = [];
  let sum = 0;
  for (let r = 0; r < VOCABULARY; r++) cumulative.push((sum += 1 / (r + 1)));
  return () => {
    const x = rand() * sum;
    let lo = 0, hi = VOCABULARY - 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (cumulative[mid] < x) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  };
}

/** Remote accounts on DOMAINS hosts, all `indexable`, bulk-inserted (the local ones come from createUser). */
function seedRemoteAccounts(app: App, rand: () => number): string[] {
  const now = app.now();
  const insert = app.db.prepare(
    `INSERT INTO accounts (id, username, domain, display_name, uri, url, inbox_url, discoverable, indexable, followers_count, created_at, updated_at)
     VALUES (?, ?, ?, ?, ?, ?, ?, 1, 1, ?, ?, ?)`,
  );
  const ids: string[] = [];
  tx(app.db, () => {
    for (let i = 0; i < ACCOUNTS - LOCAL_USERS; i++) {
      const first = FIRST[Math.floor(rand() * FIRST.length)];
      const last = LAST[Math.floor(rand() * LAST.length)];
      const username = `${first.toLowerCase()}${i}`;
      const domain = `peer${i % DOMAINS}.example`;
      const id = app.ids.next();
      const uri = `https://${domain}/users/${username}`;
      insert.run(BigInt(id), username, domain, `${first} ${last}`, uri, `https://${domain}/@${username}`, `${uri}/inbox`, Math.floor(rand() * 500), now, now);
      ids.push(id);
    }
  });
  return ids;
}

function seedStatuses(app: App, authors: { id: string; username: string; domain: string | null }[], rand: () => number): void {
  const pick = zipf(rand);
  const start = app.now() - 30 * DAY;
  const step = Math.floor((30 * DAY) / STATUSES);
  const status = app.db.prepare(
    `INSERT INTO statuses (id, account_id, local, uri, url, text, content, visibility, language, conversation_id, created_at, updated_at)
     VALUES (?, ?, ?, ?, ?, ?, ?, 'public', 'en', ?, ?, ?)`,
  );
  const conversation = app.db.prepare("INSERT INTO conversations (id, created_at) VALUES (?, ?)");
  for (let done = 0; done < STATUSES; done += 10_000) {
    tx(app.db, () => {
      for (let i = done; i < Math.min(done + 10_000, STATUSES); i++) {
        const ms = start + i * step;
        const id = ((BigInt(ms) << 16n) | BigInt(i & 0xffff)).toString();
        const a = authors[Math.floor(rand() * authors.length)];
        const words = Array.from({ length: 8 + Math.floor(rand() * 25) }, () => word(pick())).join(" ");
        const local = a.domain === null;
        const uri = local ? localStatusUri(app.baseUrl, a.username, id) : `https://${a.domain}/users/${a.username}/statuses/${i}`;
        const url = local ? localStatusUrl(app.baseUrl, a.username, id) : `https://${a.domain}/@${a.username}/${i}`;
        conversation.run(BigInt(id), ms);
        status.run(BigInt(id), BigInt(a.id), local ? 1 : 0, uri, url, local ? words : "", `<p>${words}</p>`, BigInt(id), ms, ms);
      }
    });
  }
}

const gc: () => void = (() => {
  setFlagsFromString("--expose-gc");
  return runInNewContext("gc") as () => void;
})();

function heapUsed(): number {
  gc();
  gc();
  return process.memoryUsage().heapUsed;
}

function timeEach(n: number, fn: () => unknown): number[] {
  const out: number[] = [];
  for (let i = 0; i < n; i++) {
    const t0 = performance.now();
    fn();
    out.push(performance.now() - t0);
  }
  return out;
}

const ms = (v: number) => Math.round(v * 1000) / 1000;

/**
 * In the bench process, on the seeded database: the heap the server's search adds (the name
 * matcher's vocabularies, statement caches) after answering every kind of query, and each
 * status query's in-process time on FTS5 against MiniSearch holding the same documents.
 */
async function compareEngines(dataDir: string, coldDir: string, seed: Seed): Promise<Metric[]> {
  const open = (dir = dataDir) => createApp(loadConfig(dir, { logLevel: "warn", jobsAutorun: false }, {}));
  // The server's own start (modules already loaded), on the copy of the data dir: open and
  // check the database, start the search, listen, answer a first search. What a restart costs
  // beyond loading Node's modules.
  const t0 = performance.now();
  const running = await startServer(open(coldDir), { host: "127.0.0.1", port: 0 });
  let found = 0;
  let coldMs = 0;
  try {
    const res = await fetch(`${running.url}/api/v2/search?type=statuses&q=${word(4)}`, { headers: { authorization: `Bearer ${seed.token}` } });
    found = res.status === 200 ? (((await res.json()) as { statuses?: unknown[] }).statuses?.length ?? 0) : 0;
    coldMs = performance.now() - t0;
  } finally {
    await running.close();
  }
  if (found === 0) throw new Error("in-process cold start: the search found nothing");
  const startMetric: Metric = { name: "cold start in-process: open, start, first search answered", value: Math.round(coldMs), unit: "ms" };

  const app = open();
  try {
    const viewer = findAccountById(app.db, seed.viewerId)!;
    const queries = statusQueries(seed.author);
    const before = heapUsed();
    startSearch(app);
    const runFts = (q: string) => searchStatuses(app, viewer, q, { limit: 20, offset: 0 });
    for (const q of Object.values(queries)) runFts(q);
    for (const q of [ACCOUNT_PREFIX, "alcie", "moreua", "kowalsky"]) await findAccounts(app, viewer, q, { resolve: false, following: false, limit: 40, offset: 0 });
    const ftsHeap = heapUsed() - before;
    const metrics: Metric[] = [startMetric, { name: "heap added by search (FTS5 + name matcher), per indexed status", value: Math.round(ftsHeap / seed.indexed), unit: "B" }];

    const docs = (app.db.prepare("SELECT id, content FROM statuses").raw().all() as [bigint, string][]).map(([id, content]) => ({
      id: String(id),
      text: content.slice(3, -4),
    }));
    const mini = new MiniSearch<{ id: string; text: string }>({ fields: ["text"], idField: "id" });
    const heap0 = heapUsed();
    const t0 = performance.now();
    mini.addAll(docs);
    const build = (performance.now() - t0) / 1000;
    const miniHeap = heapUsed() - heap0;
    metrics.push(
      { name: "MiniSearch: heap per status (same documents)", value: Math.round(miniHeap / docs.length), unit: "B" },
      { name: `MiniSearch: build of the ${Math.round(docs.length / 1000)}k`, value: Math.round(build * 10) / 10, unit: "s" },
      { name: "FTS5: index on disk per status", value: Math.round(seed.indexBytes / seed.indexed), unit: "B" },
    );
    for (const [name, q] of Object.entries(queries)) {
      if (name.startsWith("from:")) continue; // MiniSearch has no author filter to compare
      const fts = timeEach(50, () => runFts(q));
      const plain = q.replace(/"/g, "");
      const miniTimes = timeEach(20, () => mini.search(plain, { combineWith: "AND" }).slice(0, 20));
      metrics.push(
        { name: `in-process p99, ${name}: FTS5 (20 newest, scope and filters)`, value: ms(quantile(fts, 0.99)), unit: "ms" },
        { name: `in-process p99, ${name}: MiniSearch (ranked, no filters)`, value: ms(quantile(miniTimes, 0.99)), unit: "ms" },
      );
    }
    return metrics;
  } finally {
    await closeApp(app);
  }
}

/**
 * A second server on `dataDir`, a copy of the bench instance's (`serve` refuses a data dir
 * another serve runs on): time until it listens and until it answers a search.
 */
async function coldStart(ctx: { cliArgs(a: string[]): string[]; cliEnv: NodeJS.ProcessEnv }, dataDir: string, seed: Seed, q: string) {
  const port = await freePort();
  const t0 = performance.now();
  const server = await startServerProcess({
    args: ctx.cliArgs(["serve", "--data-dir", dataDir, "--host", "127.0.0.1", "--port", String(port)]),
    env: { ...ctx.cliEnv, ROOST_JOBS_AUTORUN: "false" },
  });
  const listening = performance.now() - t0;
  try {
    const res = await fetch(`${server.url}/api/v2/search?type=statuses&q=${encodeURIComponent(q)}`, { headers: { authorization: `Bearer ${seed.token}` } });
    const body = (await res.json()) as { statuses?: unknown[] };
    const answered = performance.now() - t0;
    if (res.status !== 200 || !body.statuses?.length) throw new Error(`cold start: the search answered ${res.status} with ${body.statuses?.length ?? 0} statuses`);
    return { listening, answered };
  } finally {
    await server.stop();
  }
}

/** `roost search reindex` as an operator runs it (beside the running server); its wall time. */
async function reindex(ctx: { dataDir: string; cliArgs(a: string[]): string[]; cliEnv: NodeJS.ProcessEnv }): Promise<{ seconds: number; counts: unknown }> {
  const t0 = performance.now();
  const child = spawn(process.execPath, ctx.cliArgs(["search", "reindex", "--data-dir", ctx.dataDir]), { env: ctx.cliEnv, stdio: ["ignore", "pipe", "ignore"] });
  let out = "";
  child.stdout.on("data", (c: Buffer) => (out += c.toString("utf8")));
  const code = await new Promise<number | null>((resolve) => child.once("exit", resolve));
  if (code !== 0) throw new Error(`roost search reindex exited with ${code}`);
  return { seconds: (performance.now() - t0) / 1000, counts: JSON.parse(out) };
}

function p99Check(name: string, t: TargetResult | undefined, maxMs: number): Check {
  return t?.p99Ms == null ? { name, ok: null, detail: "not measured" } : { name, ok: t.p99Ms < maxMs, detail: `${t.p99Ms} ms (p50 ${t.p50Ms} ms, ${Math.round(t.reqPerSec ?? 0)} req/s)` };
}

export const search: Scenario<Seed> = {
  name: "search",
  description: `${STATUSES} searchable statuses by ${ACCOUNTS} accounts: status and account search at ${CONNECTIONS} connections, heap, cold start, reindex; MiniSearch compared in-process`,
  connections: CONNECTIONS,
  async seed(app) {
    const rand = rng(15);
    const cli = ensureBuiltinApp(app, CLI_APP);
    const users = await Promise.all(
      Array.from({ length: LOCAL_USERS }, (_, i) =>
        createUser(app, { username: `searcher${i}`, email: `searcher${i}@bench.test`, password: "bench password 1", displayName: `${FIRST[i]} ${LAST[i]}` }),
      ),
    );
    app.db.exec("UPDATE accounts SET indexable = 1, discoverable = 1 WHERE domain IS NULL");
    const token = issueToken(app, { userId: users[0].user.id, applicationId: cli.id, scopes: ["read"] }).token;
    const remote = seedRemoteAccounts(app, rand);
    const authors = [
      ...users.map((u) => ({ id: u.account.id, username: u.account.username, domain: null })),
      ...remote.map((id) => {
        const a = findAccountById(app.db, id)!;
        return { id, username: a.username, domain: a.domain };
      }),
    ];
    seedStatuses(app, authors, rand);
    app.db.exec("ANALYZE");
    const t0 = performance.now();
    const built = await rebuildSearchIndexes(app.db);
    const buildSeconds = (performance.now() - t0) / 1000;
    const indexBytes = Number(app.db.prepare("SELECT sum(pgsize) FROM dbstat WHERE name LIKE 'status_search%'").pluck().get());
    app.db.pragma("wal_checkpoint(TRUNCATE)");
    const author = `${authors[LOCAL_USERS + 7].username}@${authors[LOCAL_USERS + 7].domain}`;
    return { token, author, viewerId: users[0].account.id, indexed: built.indexed, buildSeconds, indexBytes };
  },
  targets({ token, author }): Target[] {
    const auth = { authorization: `Bearer ${token}` };
    const statusTargets = Object.entries(statusQueries(author)).map(([name, q]) => ({
      name: `status search: ${name}`,
      path: `/api/v2/search?type=statuses&q=${encodeURIComponent(q)}`,
      headers: auth,
    }));
    return [
      { name: "baseline (static JSON)", path: "/api/v1/_bench/static", baseline: true },
      ...statusTargets,
      { name: "account prefix search", path: `/api/v1/accounts/search?q=${ACCOUNT_PREFIX}`, headers: auth },
      { name: "account prefix search (v2)", path: `/api/v2/search?type=accounts&q=${ACCOUNT_PREFIX}`, headers: auth },
      { name: "all types (v2, no type)", path: `/api/v2/search?q=${word(30)}`, headers: auth },
    ];
  },
  async measure(ctx) {
    const metrics: Metric[] = [
      { name: "statuses indexed", value: ctx.seed.indexed, unit: "" },
      { name: "in-process index build of the seed", value: Math.round(ctx.seed.buildSeconds * 10) / 10, unit: "s" },
    ];
    const copy = await copyDataDir(ctx.dataDir);
    try {
      const listening: number[] = [];
      const answered: number[] = [];
      for (let i = 0; i < ctx.trials; i++) {
        const r = await coldStart(ctx, copy.dataDir, ctx.seed, word(4));
        listening.push(r.listening);
        answered.push(r.answered);
      }
      metrics.push(
        { name: "cold start: listening", value: Math.round(median(listening)), unit: "ms", trials: listening.map(Math.round) },
        { name: "cold start: first search answered", value: Math.round(median(answered)), unit: "ms", trials: answered.map(Math.round) },
      );
      metrics.push(...(await compareEngines(ctx.dataDir, copy.dataDir, ctx.seed)));
    } finally {
      rmSync(copy.work, { recursive: true, force: true });
    }
    const r = await reindex(ctx);
    metrics.push({ name: "roost search reindex (CLI, beside the server)", value: Math.round(r.seconds * 10) / 10, unit: "s" });
    console.error(`reindex counts: ${JSON.stringify(r.counts)}`);
    return { metrics };
  },
  checks(s: RunSummary): Check[] {
    const find = (n: string) => s.targets.find((t) => t.name === n);
    const metric = (n: string) => s.metrics.find((m) => m.name === n)?.value ?? null;
    const out: Check[] = s.targets
      .filter((t) => t.name.startsWith("status search"))
      .map((t) => p99Check(`${t.name} p99 < ${STATUS_P99_MS} ms`, t, STATUS_P99_MS));
    out.push(p99Check(`account prefix search p99 < ${ACCOUNT_P99_MS} ms`, find("account prefix search"), ACCOUNT_P99_MS));
    out.push(p99Check(`account prefix search (v2) p99 < ${ACCOUNT_P99_MS} ms`, find("account prefix search (v2)"), ACCOUNT_P99_MS));
    const bound = (name: string, value: number | null, max: number, unit: string): Check =>
      value === null ? { name, ok: null, detail: "not measured" } : { name, ok: value <= max, detail: `${value} ${unit}` };
    out.push(bound(`heap added by the indexes <= ${HEAP_BYTES_PER_STATUS} B per status`, metric("heap added by search (FTS5 + name matcher), per indexed status"), HEAP_BYTES_PER_STATUS, "B/status"));
    // The budget is the server's start with the index in place (no rebuild); a new process adds
    // Node's module loading (more under tsx), recorded beside it.
    const cold = metric("cold start in-process: open, start, first search answered");
    const proc = metric("cold start: first search answered");
    out.push({
      name: `cold start to a served search < ${COLD_START_MS} ms`,
      ok: cold === null ? null : cold < COLD_START_MS,
      detail: `${cold ?? "-"} ms in-process; a new process ${proc ?? "-"} ms to the first answer (listening after ${metric("cold start: listening") ?? "-"} ms)`,
    });
    out.push(bound(`roost search reindex of ${STATUSES / 1000}k statuses < ${REINDEX_S} s`, metric("roost search reindex (CLI, beside the server)"), REINDEX_S, "s"));
    return out;
  },
};
