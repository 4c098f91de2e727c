// Scratch measurement (issue 15, the review of the hourly follow-suggestions ranking): the
// longest stretch the ranking holds the event loop, at 10k accounts, 100k follows by 1,000
// active local users and 100k posts of the last 30 days. Seeds DIR once (kept: later runs
// reuse it), then runs refreshSuggestions while a 1 ms timer ticks, and prints the longest gap
// between ticks, monitorEventLoopDelay's max, the wall time and a hash of the stored ranking
// (equal hashes: identical results), alternately from an empty table and from the ranking the
// previous run stored.
//   npx tsx bench/scratch/suggestions-blocking.ts [DIR] [RUNS] [REFRESH_MODULE]
// REFRESH_MODULE: another refreshSuggestions to measure (e.g. a copy of an older version).
import { createHash } from "node:crypto";
import { existsSync } from "node:fs";
import { monitorEventLoopDelay, performance } from "node:perf_hooks";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { App } from "../../src/app.ts";
import { loadConfig } from "../../src/config/config.ts";
import { tx } from "../../src/db/db.ts";
import { closeApp, createApp } from "../../src/main.ts";
import { initDataDir } from "../../src/services/init.ts";

const dir = process.argv[2] ?? join(tmpdir(), "roost-suggestions-blocking");
const runs = Number(process.argv[3] ?? 5);
const refreshModule = process.argv[4] ? join(process.cwd(), process.argv[4]) : "../../src/suggestions/refresh.ts";
const { refreshSuggestions } = (await import(refreshModule)) as { refreshSuggestions(app: App): number | Promise<number> };
const ACCOUNTS = 10_000, LOCAL = 1000, FOLLOWS_EACH = 100, STATUSES = 100_000, DAY = 86_400_000;

let x = 15;
const rand = () => ((x = (x * 1103515245 + 12345) % 2147483648), x / 2147483648);
/** Skewed towards low indexes: a few accounts are followed and boosted a lot. */
const skewed = (n: number) => Math.floor(n * rand() ** 3);

if (!existsSync(dir)) {
  initDataDir(dir, { domain: "bench.test", protocol: "http" });
  const app = createApp(loadConfig(dir, { logLevel: "warn", jobsAutorun: false }, {}));
  const now = app.now();
  const ids: bigint[] = [];
  tx(app.db, () => {
    const acc = app.db.prepare(
      `INSERT INTO accounts (id, username, domain, display_name, uri, discoverable, locked, silenced_at, created_at, updated_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    );
    const user = app.db.prepare("INSERT INTO users (id, account_id, email, confirmed_at, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?)");
    const active = app.db.prepare("INSERT INTO user_activity_days (user_id, day) VALUES (?, ?)");
    for (let i = 0; i < ACCOUNTS; i++) {
      const id = BigInt(app.ids.next());
      ids.push(id);
      const local = i < LOCAL;
      const domain = local ? null : `peer${i % 50}.example`;
      acc.run(id, `u${i}`, domain, `User ${i}`, `https://${domain ?? "bench.test"}/users/u${i}`, i % 10 === 9 ? 0 : 1, i % 50 === 7 ? 1 : 0, i % 97 === 3 ? now : null, now, now);
      if (local) {
        user.run(id, id, `u${i}@bench.test`, now, now, now);
        // Four in five local users were active in the last 30 days.
        if (i % 5 !== 0) active.run(id, Math.floor((now - (i % 40) * DAY) / DAY) * DAY);
      }
    }
    const follow = app.db.prepare("INSERT OR IGNORE INTO follows (id, account_id, target_account_id, uri, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?)");
    for (let i = 0; i < LOCAL; i++)
      for (let k = 0; k < FOLLOWS_EACH; k++) {
        const target = ids[skewed(ACCOUNTS)];
        if (target !== ids[i]) follow.run(BigInt(app.ids.next()), ids[i], target, `https://bench.test/follows/${i}-${k}`, now, now);
      }
  });
  const status = app.db.prepare(
    `INSERT INTO statuses (id, account_id, local, uri, text, content, visibility, conversation_id, reblogs_count, favourites_count, created_at, updated_at)
     VALUES (?, ?, 0, ?, '', '<p>x</p>', 'public', ?, ?, ?, ?, ?)`,
  );
  const conversation = app.db.prepare("INSERT INTO conversations (id, created_at) VALUES (?, ?)");
  const start = now - 30 * DAY + DAY;
  for (let done = 0; done < STATUSES; done += 10_000)
    tx(app.db, () => {
      for (let i = done; i < done + 10_000; i++) {
        const ms = start + Math.floor((i * (29 * DAY)) / STATUSES);
        const id = (BigInt(ms) << 16n) | BigInt(i & 0xffff);
        conversation.run(id, ms);
        status.run(id, ids[skewed(ACCOUNTS)], `https://x.example/s/${i}`, id, Math.floor(rand() * 3), Math.floor(rand() * 4), ms, ms);
      }
    });
  app.db.exec("ANALYZE");
  await closeApp(app);
}

/** The longest gap between 1 ms ticks while `work` runs: the loop held (or the process descheduled). */
async function longestGap(work: () => Promise<unknown>): Promise<{ gap: number; eld: number; wall: number }> {
  const h = monitorEventLoopDelay({ resolution: 1 });
  let last = performance.now();
  let gap = 0;
  const ticker = setInterval(() => {
    const t = performance.now();
    gap = Math.max(gap, t - last);
    last = t;
  }, 1);
  h.enable();
  await new Promise((res) => setTimeout(res, 20));
  const t0 = performance.now();
  await work();
  const wall = performance.now() - t0;
  await new Promise((res) => setTimeout(res, 20));
  h.disable();
  clearInterval(ticker);
  return { gap, eld: h.max / 1e6, wall };
}

const app = createApp(loadConfig(dir, { logLevel: "warn", jobsAutorun: false }, {}));
try {
  for (let r = 0; r < runs; r++) {
    // Even runs start from an empty ranking (every row written), odd ones from the last run's.
    const fresh = r % 2 === 0;
    if (fresh) app.db.exec("DELETE FROM follow_recommendations");
    // The noise floor: the same ticker over an idle second (the machine's load deschedules us too).
    const idle = await longestGap(() => new Promise((res) => setTimeout(res, 1000)));
    let ranked = 0;
    const m = await longestGap(async () => (ranked = await refreshSuggestions(app)));
    const rows = app.db.prepare("SELECT account_id, rank, reasons FROM follow_recommendations ORDER BY account_id").raw().all();
    const hash = createHash("sha256").update(JSON.stringify(rows, (_k, v) => (typeof v === "bigint" ? String(v) : v))).digest("hex").slice(0, 16);
    console.log(`${fresh ? "empty table" : "same ranking"}: ranked ${ranked}: wall ${m.wall.toFixed(0)} ms, longest gap between 1 ms ticks ${m.gap.toFixed(0)} ms (idle second: ${idle.gap.toFixed(0)} ms), eventLoopDelay max ${m.eld.toFixed(0)} ms, ranking ${hash}`);
  }
} finally {
  await closeApp(app);
}
