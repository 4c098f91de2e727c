import { test } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import { loadConfig } from "../../src/config/config.ts";
import { openDatabase } from "../../src/db/db.ts";
import { resolveAccountByUri } from "../../src/federation/resolve/accounts.ts";
import { parseApNote } from "../../src/federation/parse/note.ts";
import { createRemoteStatus } from "../../src/federation/remote-statuses.ts";
import { closeApp, createApp } from "../../src/main.ts";
import { databasePath } from "../../src/services/init.ts";
import { startFakeRemote } from "../helpers/fake-remote.ts";
import { noteDoc } from "../federation/remote-status-helpers.ts";
import { freePort, roost, tempDir } from "./cli-helpers.ts";
import { seedInstance } from "./ops-helpers.ts";

// `roost prune [--dry-run]` (issue 14 part 2) as an operator runs it.

test("roost prune --dry-run shows what would go, roost prune removes it with a progress bar; a budget below the local data warns", async (t) => {
  const dir = tempDir(t);
  const dataDir = join(dir, "data");
  await seedInstance(dataDir, await freePort(), ["ann"]);
  const remote = await startFakeRemote();
  t.after(() => remote.close());
  const rita = remote.actor("rita");
  let oldUri: string | undefined;
  let freshId = "";
  const app = createApp(loadConfig(dataDir, { logLevel: "silent", jobsAutorun: false, backupSchedule: "off", allowPrivateAddresses: true }, {}));
  try {
    const author = await resolveAccountByUri(app, rita.id);
    for (const days of [300, 200, 120]) {
      // Children of the pruned posts: tags, and a recent reply (kept, its in_reply_to_id cleared).
      const doc = noteDoc(rita, { published: new Date(Date.now() - days * 86_400_000).toISOString(), tag: [{ type: "Hashtag", name: "#old", href: "https://remote.example/tags/old" }] });
      assert.ok(await createRemoteStatus(app, parseApNote(doc), author!, { fetched: true }));
      oldUri ??= doc.id as string;
    }
    const fresh = await createRemoteStatus(app, parseApNote(noteDoc(rita, { inReplyTo: oldUri })), author!, { fetched: true });
    assert.ok(fresh?.inReplyToId, "the recent post replies to the oldest");
    freshId = fresh.id;
  } finally {
    await closeApp(app);
  }
  const dd = ["--data-dir", dataDir];

  const plan = await roost(["prune", "--dry-run", "--json", ...dd]);
  assert.equal(plan.code, 0, plan.stderr);
  const planned = JSON.parse(plan.stdout);
  assert.deepEqual([planned.dryRun, planned.retentionDays, planned.budgetBytes, planned.statuses.count], [true, 90, null, 3]);

  const run = await roost(["prune", ...dd]);
  assert.equal(run.code, 0, run.stderr);
  assert.match(run.stderr, /^statuses +\[#{30}\] 100% {2}3\/3$/m, "the bar reached its end");
  assert.match(run.stdout, /^ {2}remote posts +3 removed \(/m);
  // The CLI deletes with foreign keys off: every reference to the pruned posts went with them.
  const db = openDatabase(databasePath(dataDir));
  try {
    assert.deepEqual(db.pragma("foreign_key_check"), []);
    assert.equal(db.prepare("SELECT count(*) FROM statuses_tags").pluck().get(), 0n);
    assert.equal(db.prepare("SELECT in_reply_to_id FROM statuses WHERE id = ?").pluck().get(BigInt(freshId)), null);
  } finally {
    db.close();
  }

  // A budget no pruning can meet: a warning, and nothing local goes.
  const tight = await roost(["prune", "--json", ...dd], { env: { ROOST_STORAGE_BUDGET_BYTES: "1" } });
  assert.equal(tight.code, 0, tight.stderr);
  assert.match(tight.stderr, /^warning: storage is \d+ bytes, over the 1-byte budget, with nothing more that may be pruned/m);
  const tightReport = JSON.parse(tight.stdout);
  assert.equal(tightReport.statuses.count, 0, "the remote post of the last day stays even then");
  assert.ok(tightReport.after.databaseBytes > 0);
});
