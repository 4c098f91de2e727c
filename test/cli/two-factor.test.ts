// `roost user 2fa disable USER` as an operator runs it (subprocess): turns a user's two-factor
// authentication off, audit-logged as disable_2fa; needs manage_user_access.
import { test } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import * as OTPAuth from "otpauth";
import { loadConfig } from "../../src/config/config.ts";
import { closeApp, createApp } from "../../src/main.ts";
import { beginTwoFactorSetup, confirmTwoFactorSetup, twoFactorState } from "../../src/services/two-factor.ts";
import { listActionLogs } from "../../src/storage/admin-action-logs.ts";
import { findAccountByHandle } from "../../src/storage/accounts.ts";
import { findUserByAccountId } from "../../src/storage/users.ts";
import { roost, tempDir } from "./cli-helpers.ts";

async function withApp<T>(dataDir: string, fn: (app: ReturnType<typeof createApp>) => T | Promise<T>): Promise<T> {
  const app = createApp(loadConfig(dataDir, { jobsAutorun: false }));
  try {
    return await fn(app);
  } finally {
    await closeApp(app);
  }
}

test("roost user 2fa disable", async (t) => {
  const dataDir = join(tempDir(t), "data");
  const dd = ["--data-dir", dataDir];
  assert.equal((await roost(["init", ...dd, "--domain", "cli.example", "--protocol", "http"])).code, 0);
  const made = await Promise.all(
    ["boss:owner", "mia:moderator", "carol:user"].map((x) => {
      const [name, role] = x.split(":");
      return roost(["user", "create", name, ...dd, "--email", `${name}@cli.example`, "--password", "long enough pw", "--role", role]);
    }),
  );
  for (const m of made) assert.equal(m.code, 0, m.stderr);

  const carolUserId = await withApp(dataDir, async (app) => {
    const account = findAccountByHandle(app.db, "carol", null)!;
    const user = findUserByAccountId(app.db, account.id)!;
    const setup = (await beginTwoFactorSetup(app, user, "carol"))!;
    const totp = new OTPAuth.TOTP({ secret: OTPAuth.Secret.fromBase32(setup.secret) });
    assert.equal(confirmTwoFactorSetup(app, user, totp.generate({ timestamp: app.now() }))?.length, 10);
    assert.equal(twoFactorState(app, user.id).enabled, true);
    return user.id;
  });

  const [byMod, unknown] = await Promise.all([
    roost(["user", "2fa", "disable", "carol", "--as", "mia", ...dd]),
    roost(["user", "2fa", "disable", "nobody", ...dd]),
  ]);
  assert.notEqual(byMod.code, 0, "a moderator lacks manage_user_access");
  assert.equal(byMod.stderr.trimEnd().split("\n").length, 1, byMod.stderr);
  assert.notEqual(unknown.code, 0);
  assert.match(unknown.stderr, /nobody/);
  await withApp(dataDir, (app) => assert.equal(twoFactorState(app, carolUserId).enabled, true));

  const off = await roost(["user", "2fa", "disable", "@carol", ...dd]);
  assert.equal(off.code, 0, off.stderr);
  assert.match(off.stderr, /two-factor authentication disabled for @carol/);
  const again = await roost(["user", "2fa", "disable", "carol", ...dd]);
  assert.equal(again.code, 0, again.stderr);
  assert.match(again.stderr, /carol had no two-factor authentication/);

  await withApp(dataDir, (app) => {
    assert.equal(twoFactorState(app, carolUserId).enabled, false);
    const logs = listActionLogs(app.db, { action: "disable_2fa", limit: 10 });
    assert.equal(logs.length, 1, "logged once: the second run changed nothing");
    assert.deepEqual([logs[0].actorName, logs[0].source, logs[0].targetType, logs[0].targetId, logs[0].humanIdentifier], ["boss", "cli", "User", carolUserId, "carol"]);
  });
});
