import { test } from "node:test";
import assert from "node:assert/strict";
import { existsSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { openDatabase, type Row } from "../../src/db/db.ts";
import { sha256Hex, verifyPassword } from "../../src/lib/crypto.ts";
import { databasePath } from "../../src/services/init.ts";
import { findAccountByHandle } from "../../src/storage/accounts.ts";
import { findTokenByHash } from "../../src/storage/tokens.ts";
import { findUserByAccountId } from "../../src/storage/users.ts";
import { roost, tempDir } from "./cli-helpers.ts";

/** Reads the data dir's database the way the server would, then closes it. */
function inDb<T>(dataDir: string, fn: (db: ReturnType<typeof openDatabase>) => T): T {
  const db = openDatabase(databasePath(dataDir));
  try {
    return fn(db);
  } finally {
    db.close();
  }
}

const oneLine = (s: string) => s.trimEnd().split("\n").length === 1;

// Spawns cost ~1 s each through tsx, so independent commands run side by side.
test("roost init, user create, user confirm, token create, migrate, backup create/restore", async (t) => {
  const dir = tempDir(t);
  const dataDir = join(dir, "data");
  const dd = ["--data-dir", dataDir];

  // init creates the data dir.
  const init = await roost(["init", ...dd, "--domain", "Social.Example:8443", "--protocol", "http", "--title", "CLI Test", "--registrations", "approval"]);
  assert.equal(init.code, 0, init.stderr);
  const config = JSON.parse(readFileSync(join(dataDir, "config.json"), "utf8"));
  assert.equal(config.domain, "social.example:8443");
  assert.equal(config.protocol, "http");
  assert.equal(config.title, "CLI Test");
  assert.equal(config.registrations, "approval");
  assert.equal(config.allowPrivateAddresses, false);
  assert.equal(statSync(join(dataDir, "config.json")).mode & 0o777, 0o600, "the config holds secrets");

  const [again, user, migrate, badScope] = await Promise.all([
    roost(["init", ...dd, "--domain", "other.example"]),
    roost(["user", "create", "alice", ...dd, "--email", "alice@example.test", "--password-stdin", "--role", "admin"], {
      stdin: "correct horse battery\n",
    }),
    roost(["migrate", ...dd]),
    // --verbose adds the stack; without it errors are one line (the other cases).
    roost(["token", "create", "alice", ...dd, "--scopes", "read bogus", "--verbose"]),
  ]);

  // init refuses an initialised dir.
  assert.equal(again.code, 1);
  assert.equal(again.stderr, `error: ${dataDir} is already initialised\n`);

  // user create reads the password from stdin and prints the account id.
  assert.equal(user.code, 0, user.stderr);
  assert.match(user.stdout, /^\d+\n$/);
  const aliceId = user.stdout.trim();
  await inDb(dataDir, async (db) => {
    assert.equal(findAccountByHandle(db, "alice", null)!.id, aliceId);
    const u = findUserByAccountId(db, aliceId)!;
    assert.equal(u.roleId, "2", "the built-in Admin role");
    assert.equal(u.approved, true);
    assert.ok(u.confirmedAt !== null);
    assert.equal(await verifyPassword("correct horse battery", u.passwordHash), true, "the trailing newline is not part of the password");
  });

  // migrate: nothing pending after init.
  assert.equal(migrate.code, 0, migrate.stderr);
  assert.equal(migrate.stderr, "database is up to date\n");

  // An unknown scope is refused.
  assert.equal(badScope.code, 1);
  assert.match(badScope.stderr, /^error: CliError: unknown scope: bogus\n\s+at /);

  const [dup, tok, unknown, confirmed, confirmUnknown] = await Promise.all([
    roost(["user", "create", "ALICE", ...dd, "--email", "alice2@example.test", "--password", "another password"]),
    roost(["token", "create", "alice", ...dd]),
    roost(["token", "create", "nobody", ...dd]),
    roost(["user", "confirm", "alice", ...dd]),
    roost(["user", "confirm", "nobody", ...dd]),
  ]);

  // user confirm: a created user is confirmed already; an unknown name is a one-line error.
  // (Confirming a sign-up against a running server: serve.test.ts.)
  assert.deepEqual([confirmed.code, confirmed.stdout, confirmed.stderr], [0, "", "alice was already confirmed\n"]);
  assert.deepEqual([confirmUnknown.code, confirmUnknown.stderr], [1, "error: unknown user: nobody\n"]);

  // A duplicate username is a one-line validation error.
  assert.equal(dup.code, 1);
  assert.equal(dup.stdout, "");
  assert.equal(dup.stderr, "error: username has already been taken\n");

  // token create prints a token stored only as its sha256.
  assert.equal(tok.code, 0, tok.stderr);
  assert.match(tok.stdout, /^[A-Za-z0-9_-]{32,}\n$/);
  const token = tok.stdout.trim();
  inDb(dataDir, (db) => {
    const stored = findTokenByHash(db, sha256Hex(token))!;
    assert.deepEqual(stored.scopes, ["read", "write", "follow", "push"]);
    assert.equal(stored.userId, findUserByAccountId(db, aliceId)!.id);
    const app = db.prepare("SELECT name FROM oauth_applications WHERE id = ?").get(BigInt(stored.applicationId!)) as Row;
    assert.equal(app.name, "Roost CLI");
  });

  assert.equal(unknown.code, 1);
  assert.equal(unknown.stderr, "error: unknown user: nobody\n");

  // backup create + restore round trip.
  const out = join(dir, "snap.tar.gz");
  const b = await roost(["backup", "create", ...dd, "--out", out]);
  assert.equal(b.code, 0, b.stderr);
  assert.equal(b.stdout, out + "\n");
  assert.equal(statSync(out).mode & 0o777, 0o600, "a backup holds secrets");

  const restored = join(dir, "restored");
  const r = await roost(["backup", "restore", out, "--data-dir", restored]);
  assert.equal(r.code, 0, r.stderr);
  assert.equal(readFileSync(join(restored, "config.json"), "utf8"), readFileSync(join(dataDir, "config.json"), "utf8"));
  assert.ok(existsSync(join(restored, "media")));
  inDb(restored, (db) => {
    assert.equal(findAccountByHandle(db, "alice", null)?.id, aliceId);
    assert.ok(findTokenByHash(db, sha256Hex(token)), "tokens survive the round trip");
    const keys = db.prepare("SELECT count(*) AS n FROM instance_keys").get() as Row;
    assert.equal(keys.n, 1n);
  });

  const twice = await roost(["backup", "restore", out, "--data-dir", restored]);
  assert.equal(twice.code, 1);
  assert.ok(oneLine(twice.stderr));
  assert.match(twice.stderr, /already holds an instance/);
});
