// The in-memory account name index (src/search/account-names.ts) against the database's ranking
// (storage/account-search.ts), which it replaces for one-word queries: the same page for every
// query, page and viewer, and current after every kind of change, including another process's.
import { test } from "node:test";
import assert from "node:assert/strict";
import Database from "better-sqlite3";
import { startTestServer } from "../helpers/server.ts";
import { ACCOUNT_NAMES_KEY, accountNamesSize, installAccountNames, rankAccountsByName } from "../../src/search/account-names.ts";
import { searchAccounts } from "../../src/storage/account-search.ts";
import { ftsString } from "../../src/search/tokens.ts";
import { nameWords } from "../../src/search/fuzzy-names.ts";
import { databasePath } from "../../src/services/init.ts";

const q = (params: Record<string, string>) => "?" + new URLSearchParams(params).toString();

test("one-word account search in memory ranks every page as the database does, for every viewer", async (t) => {
  const s = await startTestServer();
  t.after(() => s.close());
  const db = s.app.db;
  const viewer = await s.user("viewer");
  const other = await s.user("other");
  let seed = 7;
  const rand = (n: number) => ((seed = (seed * 1103515245 + 12345) % 2 ** 31), seed % n);
  const syllables = ["al", "ali", "ce", "bo", "ma", "ri", "li", "na", "zé", "Ål"];
  const name = (parts: number) => Array.from({ length: parts }, () => syllables[rand(syllables.length)]).join("");
  const ids: string[] = [];
  for (let i = 0; i < 700; i++) {
    const id = s.app.ids.next();
    // Every seventh remote username is two syllables alone, on a server of its own: exact matches.
    const domain = i % 5 === 0 ? null : i % 7 === 0 ? `peer${i}.example` : `peer${i % 3}.example`;
    const username = `${name(2)}${domain !== null && i % 7 === 0 ? "" : i}`;
    const uri = `https://${domain ?? "local.example"}/users/${i}`;
    db.prepare(
      `INSERT INTO accounts (id, username, domain, display_name, uri, url, inbox_url, followers_count, suspended_at, created_at, updated_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, 0, 0)`,
    ).run(BigInt(id), username, domain, rand(3) === 0 ? `${name(1)} ${name(2)}-${name(1)}` : "", uri, uri, `${uri}/inbox`, rand(4) === 0 ? 3 : rand(50), i % 41 === 0 ? 1 : null);
    ids.push(id);
  }
  // Local accounts that sign in (the others above have no user row: never shown), one awaiting approval.
  for (const [k, n] of ["ali", "alba", "ma", "cebo", "zelda", "alice"].entries()) {
    const u = await s.user(n);
    ids.push(u.id);
    db.prepare("UPDATE accounts SET followers_count = ? WHERE id = ?").run(k * 4, BigInt(u.id));
  }
  const waiting = await s.user("alpending");
  db.prepare("UPDATE users SET approved = 0 WHERE account_id = ?").run(BigInt(waiting.id));
  // The viewer's follows and blockers.
  for (let i = 0; i < ids.length; i += 3) db.prepare("INSERT INTO follows (account_id, target_account_id, uri, created_at, updated_at) VALUES (?, ?, ?, 0, 0)").run(BigInt(viewer.id), BigInt(ids[i]), `https://x.example/f/${i}`);
  for (let i = 1; i < 700; i += 29) db.prepare("INSERT INTO blocks (id, account_id, target_account_id, uri, created_at) VALUES (?, ?, ?, ?, 0)").run(BigInt(s.app.ids.next()), BigInt(ids[i]), BigInt(viewer.id), `https://x.example/b/${i}`);

  const compare = (viewerId: string, term: string, following: boolean, limit: number, offset: number, exclude: string[] = []) => {
    const base = { term, viewerId, following, limit, offset, exclude };
    const [prefix, ...more] = nameWords(term);
    assert.equal(more.length, 0);
    const mem = rankAccountsByName(s.app, { ...base, prefix });
    const sql = searchAccounts(db, { ...base, domainPrefix: null, match: `${ftsString(term)}*` });
    assert.ok(mem, "the index answers");
    assert.deepEqual(mem, sql, `${term} following=${following} limit=${limit} offset=${offset}`);
    return sql.length;
  };
  let found = 0;
  for (const term of ["al", "ali", "alice", "a", "ce", "bo", "ma", "ze", "zé", "ål", "al1", "nomatch"]) {
    for (const following of [false, true]) {
      for (const [limit, offset] of [[40, 0], [40, 40], [5, 3], [1, 0], [80, 120], [40, 1000]]) {
        found += compare(viewer.id, term, following, limit, offset);
        found += compare(other.id, term, following, limit, offset);
      }
    }
  }
  assert.ok(found > 2000, `matches compared: ${found}`);
  compare(viewer.id, "al", false, 40, 0, ids.slice(0, 50));
  // Exact usernames rank first (every seventh account's username is two syllables alone).
  assert.ok(compare(viewer.id, "alli", false, 40, 0) > 0);
});

test("the name index follows renames, suspensions, deletions, follower counts and another process's writes", async (t) => {
  const s = await startTestServer();
  t.after(() => s.close());
  const viewer = await s.user("viewer");
  const carol = await s.user("carol");
  const caro = await s.user("caroline");
  const names = async (term: string) => (await s.api(viewer, "GET", `/api/v1/accounts/search${q({ q: term })}`)).map((a: any) => a.username);

  assert.deepEqual(await names("car"), ["carol", "caroline"]);
  await s.api(carol, "PATCH", "/api/v1/accounts/update_credentials", { display_name: "Mistral Wind" });
  assert.deepEqual(await names("mistr"), ["carol"]);
  await s.api(carol, "PATCH", "/api/v1/accounts/update_credentials", { display_name: "Sirocco" });
  assert.deepEqual(await names("mistr"), []);
  assert.deepEqual(await names("siro"), ["carol"]);

  // More followers rank first among local accounts.
  s.app.db.prepare("UPDATE accounts SET followers_count = 10 WHERE id = ?").run(BigInt(caro.id));
  assert.deepEqual(await names("car"), ["caroline", "carol"]);

  s.app.db.prepare("UPDATE accounts SET suspended_at = 1 WHERE id = ?").run(BigInt(caro.id));
  assert.deepEqual(await names("car"), ["carol"]);
  s.app.db.prepare("UPDATE accounts SET suspended_at = NULL WHERE id = ?").run(BigInt(caro.id));
  s.app.db.prepare("UPDATE users SET approved = 0 WHERE account_id = ?").run(BigInt(caro.id));
  assert.deepEqual(await names("car"), ["carol"]);
  s.app.db.prepare("UPDATE users SET approved = 1 WHERE account_id = ?").run(BigInt(caro.id));
  assert.deepEqual(await names("car"), ["caroline", "carol"]);

  // Another process (a `roost` command) commits: noticed through the database's data version.
  const other = new Database(databasePath(s.app.config.dataDir));
  t.after(() => other.close());
  other.prepare("UPDATE accounts SET display_name = 'Carmen' WHERE id = ?").run(BigInt(viewer.id));
  assert.deepEqual(await names("carm"), ["viewer"]);
  other.prepare("DELETE FROM users WHERE account_id = ?").run(BigInt(caro.id));
  other.prepare("DELETE FROM accounts WHERE id = ?").run(BigInt(caro.id));
  assert.deepEqual(await names("car"), ["viewer", "carol"], "caroline is gone; the viewer's new name matches");
});

test("an instance knowing more accounts than the index holds is answered by the database, the same way", async (t) => {
  const s = await startTestServer();
  t.after(() => s.close());
  const viewer = await s.user("viewer");
  for (const n of ["dana", "dario", "dave", "daphne"]) await s.user(n);
  const names = async () => (await s.api(viewer, "GET", `/api/v1/accounts/search${q({ q: "da" })}`)).map((a: any) => a.username);
  const inMemory = await names();
  assert.deepEqual(inMemory, ["dana", "dario", "dave", "daphne"]); // local, no followers: oldest first
  assert.equal(accountNamesSize(s.app), 5);
  // The same server with a bound of 3 accounts: nothing held, the same answer from the database.
  s.app.cache.delete(ACCOUNT_NAMES_KEY);
  installAccountNames(s.app, 3);
  assert.deepEqual(await names(), inMemory);
  assert.equal(accountNamesSize(s.app), 0);
  assert.equal(rankAccountsByName(s.app, { prefix: "da", term: "da", viewerId: viewer.id, following: false, exclude: [], limit: 40, offset: 0 }), null);
});
