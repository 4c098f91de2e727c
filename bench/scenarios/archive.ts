// The account archive (issue 16 part 5 budget: 20,000 posts and 200 MB of media archived in
// < 60 s with RSS growth < 50 MB). One account is seeded: a few posts through createStatus
// (mentions, tags, content warnings), copied with SQL up to the post count, and media files of
// random bytes attached to its posts. The run signs in through the web form, presses "Request
// your archive" and polls the page until the download link shows; the server's RSS is sampled
// meanwhile. ROOST_BENCH_ARCHIVE_POSTS and ROOST_BENCH_ARCHIVE_MEDIA_MB scale it down.
import { randomBytes } from "node:crypto";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { loadavg } from "node:os";
import { join } from "node:path";
import type { App } from "../../src/app.ts";
import { tx } from "../../src/db/db.ts";
import { createStatus } from "../../src/services/statuses.ts";
import { CLI_APP, ensureBuiltinApp } from "../../src/services/tokens.ts";
import { createUser } from "../../src/services/users.ts";
import { queryAdminSocket } from "../../src/ops/admin-socket.ts";
import { Browser, formWithButton } from "../../test/api/oauth-helpers.ts";
import { rssMb, sampleRss } from "../lib/rss.ts";
import type { Check, Metric, RunSummary, Scenario } from "../scenario.ts";

const POSTS = Number(process.env.ROOST_BENCH_ARCHIVE_POSTS ?? 20_000);
const MEDIA_MB = Number(process.env.ROOST_BENCH_ARCHIVE_MEDIA_MB ?? 200);
const FILE_MB = 2;
const TIME_BUDGET_S = 60;
const RSS_BUDGET_MB = 50;
const FULL = POSTS === 20_000 && MEDIA_MB === 200;
const USERNAME = "keeper";
const PASSWORD = "bench password 1";
const POLL_MS = 200;
const TIMEOUT_MS = 10 * 60_000;

/** VmRSS split into anonymous memory (heap, buffers) and file-backed pages, in MB (Linux /proc). */
function rssParts(pid: number): { anon: number; file: number } | null {
  try {
    const status = readFileSync(`/proc/${pid}/status`, "utf8");
    const kb = (k: string) => Number(new RegExp(`^${k}:\\s+(\\d+)\\s+kB`, "m").exec(status)?.[1] ?? NaN) / 1024;
    return { anon: kb("RssAnon"), file: kb("RssFile") + kb("RssShmem") };
  } catch {
    return null;
  }
}

interface Seed {
  posts: number;
  mediaMb: number;
}

/** Copies the seeded posts (new ids, uris and dates) up to POSTS, then writes and attaches the media files. */
function bulkSeed(app: App, accountId: string): void {
  const db = app.db;
  const seeds = db.prepare("SELECT id FROM statuses WHERE account_id = ? ORDER BY id").all(BigInt(accountId)) as { id: bigint }[];
  const copy = db.prepare(`INSERT INTO statuses (id, account_id, local, uri, url, text, content, spoiler_text, sensitive, visibility, language, conversation_id, created_at, updated_at)
    SELECT @id, account_id, local, uri || '-' || @id, url || '-' || @id, text, content, spoiler_text, sensitive, visibility, language, conversation_id, @at, @at FROM statuses WHERE id = @src`);
  const start = app.now() - 400 * 86_400_000;
  const ids: bigint[] = [];
  const BATCH = 5_000;
  for (let from = seeds.length; from < POSTS; from += BATCH) {
    tx(db, () => {
      for (let i = from; i < Math.min(POSTS, from + BATCH); i++) {
        const at = start + i * 60_000;
        const id = (BigInt(at) << 16n) | BigInt(i & 0xffff);
        copy.run({ id, at, src: seeds[i % seeds.length].id });
        ids.push(id);
      }
    });
  }
  db.prepare("UPDATE accounts SET statuses_count = ? WHERE id = ?").run(POSTS, BigInt(accountId));
  const files = Math.round(MEDIA_MB / FILE_MB);
  mkdirSync(join(app.mediaDir, "bench"), { recursive: true });
  const media = db.prepare(`INSERT INTO media_attachments (id, account_id, status_id, type, file, content_type, file_size, created_at, updated_at)
    VALUES (?, ?, ?, 'image', ?, 'image/jpeg', ?, ?, ?)`);
  const bytes = FILE_MB * 1024 * 1024;
  for (let i = 0; i < files; i++) {
    const name = `bench/archive-${i}.jpg`;
    // Random bytes: the ZIP cannot compress them, as with real photos.
    writeFileSync(join(app.mediaDir, name), randomBytes(bytes));
    const statusId = ids.length ? ids[Math.floor((i * ids.length) / files)] : seeds[i % seeds.length].id;
    media.run(BigInt(app.ids.next()), BigInt(accountId), statusId, name, bytes, app.now(), app.now());
  }
}

export const archive: Scenario<Seed> = {
  name: "archive",
  description: `account archive of ${POSTS.toLocaleString("en")} posts and ${MEDIA_MB} MB of media, requested from the settings page; time until the download link shows, server RSS growth`,
  async seed(app) {
    const cli = ensureBuiltinApp(app, CLI_APP);
    const keeper = await createUser(app, { username: USERNAME, email: "keeper@bench.test", password: PASSWORD });
    await createUser(app, { username: "friend", email: "friend@bench.test", password: PASSWORD });
    for (let i = 0; i < Math.min(20, POSTS); i++) {
      createStatus(app, keeper, { text: `Post ${i} for @friend about #birds, with a few more words to make it a realistic size`, spoilerText: i % 3 ? "" : "birds" }, { applicationId: cli.id });
    }
    await app.jobs.drain();
    const started = performance.now();
    bulkSeed(app, keeper.account.id);
    console.log(`archive: seeded ${POSTS} posts and ${MEDIA_MB} MB of media in ${((performance.now() - started) / 1000).toFixed(1)} s`);
    return { posts: POSTS, mediaMb: MEDIA_MB };
  },
  targets: () => [],
  async measure({ url, pid, dataDir, seed }) {
    const b = new Browser(url);
    const signIn = await b.signIn(USERNAME, PASSWORD);
    if (signIn.status !== 302) throw new Error(`sign-in failed: ${signIn.status}`);
    const page = await b.fetch("/settings/archive");
    const form = formWithButton(page.text, "Request your archive").fields;
    global.gc?.();
    const before = rssMb(pid);
    const partsBefore = rssParts(pid);
    let anonPeak = partsBefore?.anon ?? 0;
    let fileAtAnonPeak = partsBefore?.file ?? 0;
    const partsTimer = setInterval(() => {
      const p = rssParts(pid);
      if (p && p.anon > anonPeak) [anonPeak, fileAtAnonPeak] = [p.anon, p.file];
    }, 50);
    const rss = sampleRss(pid, 50);
    // The JS heap as the server itself reports it (admin socket): heap or native memory?
    const heapBefore = (await queryAdminSocket(dataDir))?.heapUsedBytes ?? null;
    let heapPeak = heapBefore ?? 0;
    let sampling = true;
    const heapLoop = (async () => {
      while (sampling) {
        const h = (await queryAdminSocket(dataDir))?.heapUsedBytes;
        if (h !== undefined && h > heapPeak) heapPeak = h;
        await new Promise((r) => setTimeout(r, 100));
      }
    })();
    const started = performance.now();
    const res = await b.fetch("/settings/archive", { form });
    if (res.status !== 302) throw new Error(`archive request failed: ${res.status} ${res.text.slice(0, 500)}`);
    let link: string | null = null;
    while (!link) {
      if (performance.now() - started > TIMEOUT_MS) throw new Error("the archive was not ready after 10 minutes");
      await new Promise((r) => setTimeout(r, POLL_MS));
      link = /href="(\/settings\/archives\/\d+\/download)"/.exec((await b.fetch("/settings/archive")).text)?.[1] ?? null;
    }
    const seconds = (performance.now() - started) / 1000;
    const peak = rss.stop();
    clearInterval(partsTimer);
    sampling = false;
    await heapLoop;
    const load = loadavg()[0];
    const download = await fetch(url + link, { headers: { cookie: [...b.cookies].map(([k, v]) => `${k}=${v}`).join("; ") } });
    const zipBytes = Number(download.headers.get("content-length"));
    await download.body?.cancel();
    const metrics: Metric[] = [
      { name: "archive ready after", value: Math.round(seconds * 10) / 10, unit: "s" },
      { name: "server RSS before the request", value: before === null ? null : Math.round(before * 10) / 10, unit: "MB" },
      { name: "server RSS growth while archiving", value: before === null || peak === null ? null : Math.round((peak - before) * 10) / 10, unit: "MB" },
      { name: "of which anonymous memory (heap, buffers), at its peak", value: partsBefore ? Math.round((anonPeak - partsBefore.anon) * 10) / 10 : null, unit: "MB" },
      { name: "JS heap used: peak growth (admin socket, every 100 ms)", value: heapBefore === null ? null : Math.round(((heapPeak - heapBefore) / 1048576) * 10) / 10, unit: "MB" },
      { name: "file-backed RSS change at that moment", value: partsBefore ? Math.round((fileAtAnonPeak - partsBefore.file) * 10) / 10 : null, unit: "MB" },
      { name: "archive size", value: Math.round((zipBytes / 1048576) * 10) / 10, unit: "MB" },
      { name: "posts seeded", value: seed.posts, unit: "posts" },
      { name: "media seeded", value: seed.mediaMb, unit: "MB" },
      { name: "machine load average (1 min) at the end", value: Math.round(load * 10) / 10, unit: "runnable" },
    ];
    return { metrics };
  },
  checks(s: RunSummary): Check[] {
    const m = (n: string) => s.metrics.find((x) => x.name === n)?.value ?? null;
    const seconds = m("archive ready after");
    const growth = m("server RSS growth while archiving");
    const size = m("archive size");
    const scaled = FULL ? "" : ` (scaled run: ${POSTS} posts, ${MEDIA_MB} MB; the budget is for 20,000 posts and 200 MB)`;
    return [
      { name: `archive of 20,000 posts and 200 MB of media < ${TIME_BUDGET_S} s${scaled}`, ok: seconds === null ? null : FULL ? seconds < TIME_BUDGET_S : seconds * Math.max(20_000 / POSTS, 200 / MEDIA_MB) < TIME_BUDGET_S, detail: `${seconds} s` },
      { name: `server RSS growth < ${RSS_BUDGET_MB} MB${scaled}`, ok: growth === null ? null : growth < RSS_BUDGET_MB, detail: `${growth} MB` },
      { name: "the archive holds the media (size >= media seeded)", ok: size === null ? null : size >= MEDIA_MB, detail: `${size} MB` },
    ];
  },
};
