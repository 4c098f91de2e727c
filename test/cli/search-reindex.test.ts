// `roost search reindex` as an operator runs it: both indexes rebuilt from the tables (here after
// they were emptied), counts as JSON on stdout, a progress bar on stderr.
import { test } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import { loadConfig } from "../../src/config/config.ts";
import { closeApp, createApp } from "../../src/main.ts";
import { search } from "../../src/services/search.ts";
import { createStatus } from "../../src/services/statuses.ts";
import { createUser } from "../../src/services/users.ts";
import { setSetting } from "../../src/storage/settings.ts";
import { PENDING_SETTING, isStatusIndexPending } from "../../src/search/status-index.ts";
import { roost, tempDir } from "./cli-helpers.ts";

test("roost search reindex rebuilds the status and account indexes", { timeout: 120_000 }, async (t) => {
  const dataDir = join(tempDir(t), "data");
  const init = await roost(["init", "--data-dir", dataDir, "--domain", "reindex.test", "--protocol", "http"]);
  assert.equal(init.code, 0, init.stderr);

  const open = () => createApp(loadConfig(dataDir, { logLevel: "silent", jobsAutorun: false }, {}));
  const find = async (app: ReturnType<typeof open>, viewer: Awaited<ReturnType<typeof createUser>>, q: string) =>
    search(app, viewer.account, { q, resolve: false, limit: 20, offset: 0, following: false, excludeUnreviewed: false });
  let app = open();
  let alice: Awaited<ReturnType<typeof createUser>>;
  let ids: string[];
  try {
    alice = await createUser(app, { username: "alice", email: "alice@example.test", password: "correct horse battery", displayName: "Gooseberry Fan" });
    ids = Array.from({ length: 30 }, (_, i) => createStatus(app, alice, { text: `gooseberry ${i}`, visibility: i % 2 ? "private" : "public" }, { applicationId: null }).id);
    // The indexes lost, as after a damaged file or a bug: nothing is found.
    app.db.exec("INSERT INTO status_search (status_search) VALUES ('delete-all'); INSERT INTO account_search (account_search) VALUES ('delete-all')");
    setSetting(app.db, PENDING_SETTING, true);
    const lost = await find(app, alice, "gooseberry");
    assert.deepEqual([lost.statuses.length, lost.accounts.length], [0, 0]);
  } finally {
    await closeApp(app);
  }

  const run = await roost(["search", "reindex", "--data-dir", dataDir]);
  assert.equal(run.code, 0, run.stderr);
  assert.deepEqual(JSON.parse(run.stdout), { statuses: 30, indexed: 30, accounts: 1 });
  assert.match(run.stderr, /statuses \[#{30}\] 100% 30\/30/);
  assert.match(run.stderr, /indexed 30 of 30 statuses and 1 accounts in/);

  app = open();
  try {
    const found = await find(app, alice, "gooseberry");
    assert.deepEqual(found.statuses.map((s) => s.id), [...ids].reverse().slice(0, 20));
    assert.deepEqual(found.accounts, [alice.account.id]);
    assert.equal(isStatusIndexPending(app.db), false);
  } finally {
    await closeApp(app);
  }

  const missing = await roost(["search", "reindex", "--data-dir", join(dataDir, "nowhere")]);
  assert.equal(missing.code, 1);
  assert.match(missing.stderr, /^error: .* is not initialised/);
});
