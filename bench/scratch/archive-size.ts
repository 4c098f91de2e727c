// Scratch measurement (issue 16 part 5): time and RSS growth of archive.build for an account of
// 20,000 posts with 200 MB of media. Seeds a few posts through the API, then copies rows with SQL
// (a measurement, not a test). Run: node --import tsx bench/scratch/archive-size.ts
import { randomBytes } from "node:crypto";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { startTestServer } from "../../test/helpers/server.ts";
import { handleArchiveBuild } from "../../src/jobs/handlers/archive-build.ts";
import { requestArchive, archivesOf } from "../../src/services/account-archives.ts";

const POSTS = 20_000, FILES = 100, FILE_MB = 2;
const s = await startTestServer();
const alice = await s.user("alice");
const db = s.app.db;
for (let i = 0; i < 20; i++) await s.api(alice, "POST", "/api/v1/statuses", { status: `seed ${i} with some words #tag`, spoiler_text: i % 3 ? "" : "cw" });
const seeds = db.prepare("SELECT id FROM statuses WHERE account_id = ?").all(BigInt(alice.id)) as { id: bigint }[];
let next = BigInt(seeds[seeds.length - 1].id) + 1000n;
const copy = db.prepare(`INSERT INTO statuses (id, account_id, local, uri, url, text, content, spoiler_text, sensitive, visibility, language, conversation_id, created_at, updated_at)
  SELECT @id, account_id, local, uri || '-' || @id, url || '-' || @id, text, content, spoiler_text, sensitive, visibility, language, conversation_id, created_at, updated_at FROM statuses WHERE id = @src`);
const ids: bigint[] = [];
db.transaction(() => {
  for (let i = seeds.length; i < POSTS; i++) {
    const id = next++;
    copy.run({ id, src: seeds[i % seeds.length].id });
    ids.push(id);
  }
})();
db.prepare("UPDATE accounts SET statuses_count = ? WHERE id = ?").run(POSTS, BigInt(alice.id));
const dir = join(s.app.mediaDir, "bench");
mkdirSync(dir, { recursive: true });
const media = db.prepare(`INSERT INTO media_attachments (id, account_id, status_id, type, file, content_type, file_size, created_at, updated_at)
  VALUES (?, ?, ?, 'image', ?, 'image/jpeg', ?, 0, 0)`);
for (let i = 0; i < FILES; i++) {
  const name = `bench/f${i}.jpg`;
  writeFileSync(join(s.app.mediaDir, name), randomBytes(FILE_MB * 1024 * 1024));
  media.run(next++, BigInt(alice.id), ids[i * 150], name, FILE_MB * 1024 * 1024);
}
global.gc?.();
const rss0 = process.memoryUsage().rss;
let peak = rss0;
const timer = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 50);
const a = requestArchive(s.app, alice.account);
const t0 = performance.now();
await handleArchiveBuild(s.app, { archiveId: a.id });
const ms = performance.now() - t0;
clearInterval(timer);
const done = archivesOf(s.app, alice.account)[0];
console.log(JSON.stringify({ posts: POSTS, mediaMB: FILES * FILE_MB, seconds: +(ms / 1000).toFixed(1), zipMB: +((done.size ?? 0) / 1048576).toFixed(1), rssGrowthMB: +((peak - rss0) / 1048576).toFixed(1) }));
await s.close();
