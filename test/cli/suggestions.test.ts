// `roost accounts feature|unfeature|featured` as an operator runs them (subprocesses): the
// admins' featured accounts of follow suggestions (source `featured`), audit-logged.
import { test } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import { loadConfig } from "../../src/config/config.ts";
import { closeApp, createApp } from "../../src/main.ts";
import { followSuggestions } from "../../src/services/suggestions.ts";
import { findAccountByHandle, updateAccount } from "../../src/storage/accounts.ts";
import { roost, tempDir } from "./cli-helpers.ts";

const jsonLines = (s: string) => s.trimEnd().split("\n").filter(Boolean).map((l) => JSON.parse(l));

test("roost accounts feature / unfeature / featured: suggested to everyone, audited, staff with manage_settings only", async (t) => {
  const dataDir = join(tempDir(t), "data");
  const dd = ["--data-dir", dataDir];
  assert.equal((await roost(["init", ...dd, "--domain", "cli.example", "--protocol", "http"])).code, 0);
  for (const x of ["boss:owner", "mia:moderator", "bob:user", "cat:user"]) {
    const [name, role] = x.split(":");
    const r = await roost(["user", "create", name, ...dd, "--email", `${name}@cli.example`, "--password", "long enough pw", "--role", role]);
    assert.equal(r.code, 0, r.stderr);
  }

  const featured = await roost(["accounts", "feature", "bob", "--json", ...dd]);
  assert.equal(featured.code, 0, featured.stderr);
  assert.equal(JSON.parse(featured.stdout).username, "bob");
  const [list, byMod, missing] = await Promise.all([
    roost(["accounts", "featured", "--json", ...dd]),
    roost(["accounts", "feature", "cat", "--as", "mia", ...dd]),
    roost(["accounts", "feature", "nobody", ...dd]),
  ]);
  assert.deepEqual(jsonLines(list.stdout).map((a) => a.username), ["bob"]);
  // A moderator may not change the server's settings (Mastodon's manage_settings).
  assert.notEqual(byMod.code, 0);
  assert.match(byMod.stderr, /This action is not allowed/);
  assert.notEqual(missing.code, 0);

  // The featured account is suggested to another user once it is discoverable.
  const app = createApp(loadConfig(dataDir, { jobsAutorun: false }));
  try {
    const bob = findAccountByHandle(app.db, "bob", null)!;
    const cat = findAccountByHandle(app.db, "cat", null)!;
    updateAccount(app.db, bob.id, { discoverable: true });
    const found = followSuggestions(app, cat.id, { limit: 40, offset: 0 });
    assert.deepEqual(found.map((s) => [s.account.username, s.sources]), [["bob", ["featured"]]]);
  } finally {
    await closeApp(app);
  }

  assert.equal((await roost(["accounts", "unfeature", "bob", ...dd])).code, 0);
  const [after, audit] = await Promise.all([roost(["accounts", "featured", "--json", ...dd]), roost(["audit", "list", "--target-type", "Account", "--json", ...dd])]);
  assert.equal(after.stdout.trim(), "");
  const entries = jsonLines(audit.stdout).filter((e) => e.action === "feature" || e.action === "unfeature");
  assert.deepEqual(
    entries.map((e) => [e.action, e.target_type, e.target_name, e.changes]),
    [
      ["unfeature", "Account", "bob", { featured: [true, false] }],
      ["feature", "Account", "bob", { featured: [false, true] }],
    ],
  );
});
