// Issue 15's trends budget: the trends task over a day of 100k posts < 2 s. A day of public
// posts by 1,000 accounts (a hashtag in most, a link in one in ten) and 50k favourites, written
// in bulk so the triggers of migrations/0041_trends.sql record their uses as a live server
// would; then trends.refresh (links parsed from the queue, every kind scored) is timed in the
// bench process, a first run over the whole day and a second one ten minutes later.
import { performance } from "node:perf_hooks";
import type { App } from "../../src/app.ts";
import { tx } from "../../src/db/db.ts";
import { loadConfig } from "../../src/config/config.ts";
import { closeApp, createApp } from "../../src/main.ts";
import { refreshTrends } from "../../src/trends/refresh.ts";
import type { Check, Metric, RunSummary, Scenario } from "../scenario.ts";

const POSTS = 100_000;
const ACCOUNTS = 1000;
const TAGS = 2000;
const FAVOURITES = 50_000;
const HOUR = 3_600_000;
const BUDGET_S = 2;

function rng(seed: number): () => number {
  let x = seed >>> 0;
  return () => {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    return (x >>> 0) / 4294967296;
  };
}

interface Seed {
  now: number;
}

function seedDay(app: App): Seed {
  const rand = rng(3);
  const now = app.now();
  const start = now - 24 * HOUR;
  const db = app.db;
  const accounts: bigint[] = [];
  const tags: bigint[] = [];
  const insAccount = db.prepare(
    "INSERT INTO accounts (id, username, domain, display_name, uri, discoverable, created_at, updated_at) VALUES (?, ?, ?, '', ?, 1, ?, ?)",
  );
  const insTag = db.prepare("INSERT INTO tags (id, name, display_name, created_at) VALUES (?, ?, ?, ?)");
  tx(db, () => {
    for (let i = 0; i < ACCOUNTS; i++) {
      const id = BigInt(app.ids.next());
      insAccount.run(id, `poster${i}`, `peer${i % 20}.example`, `https://peer${i % 20}.example/users/poster${i}`, start, start);
      accounts.push(id);
    }
    for (let i = 0; i < TAGS; i++) {
      const id = BigInt(app.ids.next());
      insTag.run(id, `topic${i}`, `topic${i}`, start);
      tags.push(id);
    }
  });
  const insStatus = db.prepare(
    `INSERT INTO statuses (id, account_id, local, uri, content, visibility, conversation_id, created_at, updated_at)
     VALUES (?, ?, 0, ?, ?, 'public', NULL, ?, ?)`,
  );
  const insStatusTag = db.prepare("INSERT INTO statuses_tags (status_id, tag_id) VALUES (?, ?)");
  const insFav = db.prepare("INSERT OR IGNORE INTO favourites (id, account_id, status_id, created_at) VALUES (?, ?, ?, ?)");
  const step = (24 * HOUR) / POSTS;
  const ids: bigint[] = [];
  for (let done = 0; done < POSTS; done += 10_000) {
    tx(db, () => {
      for (let i = done; i < done + 10_000; i++) {
        const ms = Math.floor(start + i * step);
        const id = (BigInt(ms) << 16n) | BigInt(i & 0xffff);
        const author = accounts[Math.floor(rand() * ACCOUNTS)];
        // Skewed tag choice: a few topics are common, most are rare.
        const tag = tags[Math.floor(TAGS * rand() ** 3)];
        const link = rand() < 0.1 ? ` <a href="https://site${Math.floor(rand() * 30)}.example/article/${Math.floor(rand() * 5)}" rel="nofollow noopener" target="_blank">link</a>` : "";
        insStatus.run(id, author, `https://peer.example/s/${i}`, `<p>post ${i} <a href="https://x/tags/t" class="mention hashtag" rel="tag">#<span>t</span></a>${link}</p>`, ms, ms);
        if (rand() < 0.8) insStatusTag.run(id, tag);
        ids.push(id);
      }
    });
  }
  tx(db, () => {
    for (let i = 0; i < FAVOURITES; i++) {
      const status = ids[Math.floor(ids.length * (1 - rand() ** 2))];
      const at = Number(status >> 16n) + Math.floor(rand() * HOUR);
      insFav.run(BigInt(app.ids.next()), accounts[Math.floor(rand() * ACCOUNTS)], status, Math.min(at, now));
    }
  });
  return { now };
}

export const trends: Scenario<Seed> = {
  name: "trends",
  description: `the trends task over a day of ${POSTS / 1000}k public posts by ${ACCOUNTS} accounts (${FAVOURITES / 1000}k favourites); in-process, one measurement per run`,
  // The server must not run the task itself before it is timed here.
  serverEnv: { ROOST_JOBS_AUTORUN: "false" },
  seed: async (app) => seedDay(app),
  targets: () => [],
  async measure({ dataDir, seed }) {
    const app = createApp(loadConfig(dataDir, { logLevel: "warn", jobsAutorun: false }, {}));
    try {
      app.now = () => seed.now;
      const uses = Number(app.db.prepare("SELECT count(*) FROM trend_uses").pluck().get());
      const queued = Number(app.db.prepare("SELECT count(*) FROM trend_link_queue").pluck().get());
      let t0 = performance.now();
      const first = refreshTrends(app);
      const firstS = (performance.now() - t0) / 1000;
      app.now = () => seed.now + 10 * 60_000;
      t0 = performance.now();
      refreshTrends(app);
      const secondS = (performance.now() - t0) / 1000;
      const metrics: Metric[] = [
        { name: "uses recorded by the triggers while seeding", value: uses, unit: "rows" },
        { name: "posts queued for their links", value: queued, unit: "" },
        { name: "trends.refresh over the day (first run, links parsed)", value: Math.round(firstS * 1000) / 1000, unit: "s" },
        { name: "trends.refresh ten minutes later", value: Math.round(secondS * 1000) / 1000, unit: "s" },
        { name: "trending tags after the first run", value: first.tag, unit: "" },
        { name: "trending posts after the first run", value: first.status, unit: "" },
        { name: "trending links after the first run", value: first.link, unit: "" },
      ];
      return { metrics };
    } finally {
      await closeApp(app);
    }
  },
  checks(s: RunSummary): Check[] {
    const v = s.metrics.find((m) => m.name.startsWith("trends.refresh over the day"))?.value ?? null;
    return [{ name: `trends task over a day of ${POSTS / 1000}k posts < ${BUDGET_S} s`, ok: v === null ? null : v < BUDGET_S, detail: v === null ? "not measured" : `${v} s` }];
  },
};
