// The status index as posts and people change: who may find what (a user's library, the
// `indexable` opt-in, local and remote), blocks, mutes and domain blocks, edits and deletes
// seen at once, a restart, the background build of an upgraded instance, and bad input.
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadConfig } from "../../src/config/config.ts";
import { parseApNote } from "../../src/federation/parse/note.ts";
import { resolveAccountByUri } from "../../src/federation/resolve/accounts.ts";
import { createRemoteStatus, deleteRemoteStatus, updateRemoteStatus } from "../../src/federation/remote-statuses.ts";
import { closeApp, createApp, startServer } from "../../src/main.ts";
import { isStatusIndexPending, PENDING_SETTING } from "../../src/search/status-index.ts";
import { blockDomain } from "../../src/services/account-domain-blocks.ts";
import { initDataDir } from "../../src/services/init.ts";
import { CLI_APP, ensureBuiltinApp, issueToken } from "../../src/services/tokens.ts";
import { createStatus } from "../../src/services/statuses.ts";
import { createUser } from "../../src/services/users.ts";
import { setSetting } from "../../src/storage/settings.ts";
import { startFakeRemote } from "../helpers/fake-remote.ts";
import { startTestServer, type TestServer, type TestUser } from "../helpers/server.ts";
import { PUBLIC, remoteAccountOf } from "../federation/remote-status-helpers.ts";

const q = (params: Record<string, string>) => "?" + new URLSearchParams(params).toString();

async function finder(s: TestServer, who: TestUser) {
  return async (query: string) => {
    const r = await s.req(who, "GET", `/api/v2/search${q({ q: query, type: "statuses" })}`);
    assert.equal(r.status, 200, `${query}: ${r.text}`);
    return r.body.statuses.map((x: { id: string }) => x.id) as string[];
  };
}

test("who finds what: own posts, mentions, favourites, bookmarks, boosts and votes; the indexable opt-in", async (t) => {
  const s = await startTestServer();
  const remote = await startFakeRemote();
  t.after(() => Promise.all([s.close(), remote.close()]));
  const alice = await s.user("alice");
  const bob = await s.user("bob");
  const carol = await s.user("carol");
  await s.api(alice, "PATCH", "/api/v1/accounts/update_credentials", { indexable: true });
  const post = async (u: TestUser, status: string, extra: Record<string, unknown> = {}) => (await s.api(u, "POST", "/api/v1/statuses", { status, ...extra })).id as string;
  // bob has not opted in: his public posts are his own to find, and for whoever has them in a library.
  const b1 = await post(bob, "zanzibar public");
  const b2 = await post(bob, "zanzibar private", { visibility: "private" });
  const b3 = await post(bob, "zanzibar for @carol", { visibility: "direct" });
  const b4 = await post(bob, "zanzibar poll", { poll: { options: ["yes", "no"], expires_in: 3600 } });
  const a1 = await post(alice, "zanzibar from alice");
  const byCarol = await finder(s, carol);
  const byBob = await finder(s, bob);

  assert.deepEqual(await byCarol("zanzibar"), [a1, b3]);
  assert.deepEqual(await byBob("zanzibar"), [a1, b4, b3, b2, b1]);
  assert.deepEqual(await byBob("in:library zanzibar"), [b4, b3, b2, b1]);
  assert.deepEqual(await byBob("in:public zanzibar"), [a1]);

  // Each interaction puts the post in carol's library, and taking it back takes it out.
  for (const [act, undo] of [
    ["favourite", "unfavourite"],
    ["bookmark", "unbookmark"],
    ["reblog", "unreblog"],
  ]) {
    await s.api(carol, "POST", `/api/v1/statuses/${b1}/${act}`);
    assert.deepEqual(await byCarol("zanzibar"), [a1, b3, b1], act);
    await s.api(carol, "POST", `/api/v1/statuses/${b1}/${undo}`);
    assert.deepEqual(await byCarol("zanzibar"), [a1, b3], undo);
  }
  const poll = (await s.api(carol, "GET", `/api/v1/statuses/${b4}`)).poll;
  await s.api(carol, "POST", `/api/v1/polls/${poll.id}/votes`, { choices: ["0"] });
  assert.deepEqual(await byCarol("zanzibar"), [a1, b4, b3]);
  assert.deepEqual(await byCarol("in:library zanzibar"), [b4, b3]);
  // A post in carol's library that she may no longer see is not shown (a follower's favourite
  // of a followers-only post, then the follow ends).
  await s.api(carol, "POST", `/api/v1/accounts/${bob.id}/follow`);
  await s.api(carol, "POST", `/api/v1/statuses/${b2}/favourite`);
  assert.deepEqual(await byCarol("private"), [b2]);
  await s.api(carol, "POST", `/api/v1/accounts/${bob.id}/unfollow`);
  assert.deepEqual(await byCarol("private"), []);

  // bob opts in: his public posts join once the job has run (never his private ones); opting
  // out hides them at once, before the job runs.
  await s.api(bob, "PATCH", "/api/v1/accounts/update_credentials", { indexable: true });
  await s.drainJobs();
  assert.deepEqual(await byCarol("zanzibar"), [a1, b4, b3, b1]);
  await s.api(bob, "PATCH", "/api/v1/accounts/update_credentials", { indexable: false });
  assert.deepEqual(await byCarol("zanzibar"), [a1, b4, b3]);
  await s.drainJobs();
  assert.deepEqual(await byCarol("zanzibar"), [a1, b4, b3]);

  // A remote author: its actor's `indexable` decides, and a change of it is followed.
  const rita = remote.actor("rita");
  const author = await remoteAccountOf(s, rita);
  const note = {
    "@context": "https://www.w3.org/ns/activitystreams",
    id: `${rita.id}/statuses/1`,
    type: "Note",
    attributedTo: rita.id,
    content: "<p>zanzibar from afar</p>",
    published: new Date(Date.now() - 60_000).toISOString(),
    to: [PUBLIC],
    cc: [rita.followers],
  };
  const r1 = (await createRemoteStatus(s.app, parseApNote(note), author, { fetched: true }))!.id;
  assert.deepEqual(await byCarol("afar"), []);
  rita.doc.indexable = true;
  await resolveAccountByUri(s.app, rita.id, { refresh: true });
  await s.drainJobs();
  assert.deepEqual(await byCarol("afar"), [r1]);
  assert.equal((await s.api(carol, "GET", `/api/v1/accounts/${author.id}`)).indexable, true);
});

test("blocks either way, mutes and domain blocks hide posts from search", async (t) => {
  const s = await startTestServer();
  const remote = await startFakeRemote();
  t.after(() => Promise.all([s.close(), remote.close()]));
  const viewer = await s.user("viewer");
  const alice = await s.user("alice");
  const bob = await s.user("bob");
  const dave = await s.user("dave");
  for (const u of [alice, bob, dave]) await s.api(u, "PATCH", "/api/v1/accounts/update_credentials", { indexable: true });
  const a1 = (await s.api(alice, "POST", "/api/v1/statuses", { status: "quokka by alice" })).id;
  const b1 = (await s.api(bob, "POST", "/api/v1/statuses", { status: "quokka by bob" })).id;
  const d1 = (await s.api(dave, "POST", "/api/v1/statuses", { status: "quokka by dave" })).id;
  const rita = remote.actor("rita", { extra: { indexable: true } });
  const author = await remoteAccountOf(s, rita);
  const doc = {
    "@context": "https://www.w3.org/ns/activitystreams",
    id: `${rita.id}/statuses/1`,
    type: "Note",
    attributedTo: rita.id,
    content: "<p>quokka from afar</p>",
    published: new Date(Date.now() - 60_000).toISOString(),
    to: [PUBLIC],
    cc: [rita.followers],
  };
  const r1 = (await createRemoteStatus(s.app, parseApNote(doc), author, { fetched: true }))!.id;
  const find = await finder(s, viewer);
  assert.deepEqual(await find("quokka"), [d1, b1, a1, r1]);

  await s.api(viewer, "POST", `/api/v1/accounts/${alice.id}/block`);
  await s.api(bob, "POST", `/api/v1/accounts/${viewer.id}/block`);
  await s.api(viewer, "POST", `/api/v1/accounts/${dave.id}/mute`);
  // Through the service: the API refuses a host with a port (as in test/api/search.test.ts).
  blockDomain(s.app, viewer.account, remote.domain);
  assert.deepEqual(await find("quokka"), []);
  // The accounts themselves stay findable for the viewer's own blocks and mutes, not bob's.
  for (const [name, found] of [["alice", ["alice"]], ["dave", ["dave"]], ["bob", []]] as const) {
    const accounts = await s.api(viewer, "GET", `/api/v2/search${q({ q: name, type: "accounts" })}`);
    assert.deepEqual(accounts.accounts.map((a: { username: string }) => a.username), found, name);
  }
  // Others still find them all.
  assert.deepEqual(await (await finder(s, alice))("quokka"), [d1, b1, a1, r1]);
  await s.api(viewer, "POST", `/api/v1/accounts/${alice.id}/unblock`);
  await s.api(viewer, "POST", `/api/v1/accounts/${dave.id}/unmute`);
  assert.deepEqual(await find("quokka"), [d1, a1]);
});

test("edits and deletes, local and remote, reach the index at once", async (t) => {
  const s = await startTestServer();
  const remote = await startFakeRemote();
  t.after(() => Promise.all([s.close(), remote.close()]));
  const alice = await s.user("alice");
  const viewer = await s.user("viewer");
  await s.api(alice, "PATCH", "/api/v1/accounts/update_credentials", { indexable: true });
  const find = await finder(s, viewer);
  const p = (await s.api(alice, "POST", "/api/v1/statuses", { status: "apricot jam" })).id;
  assert.deepEqual(await find("apricot"), [p]);
  await s.api(alice, "PUT", `/api/v1/statuses/${p}`, { status: "banana jam", spoiler_text: "fruit talk", sensitive: true });
  assert.deepEqual(await find("apricot"), []);
  assert.deepEqual(await find("banana is:sensitive"), [p]);
  assert.deepEqual(await find("fruit"), [p]);
  await s.api(alice, "DELETE", `/api/v1/statuses/${p}`);
  assert.deepEqual(await find("banana"), []);

  const rita = remote.actor("rita", { extra: { indexable: true } });
  const author = await remoteAccountOf(s, rita);
  const doc = {
    "@context": "https://www.w3.org/ns/activitystreams",
    id: `${rita.id}/statuses/7`,
    type: "Note",
    attributedTo: rita.id,
    content: "<p>cherry pie</p>",
    published: new Date(Date.now() - 60_000).toISOString(),
    to: [PUBLIC],
    cc: [rita.followers],
  };
  const r = (await createRemoteStatus(s.app, parseApNote(doc), author, { fetched: true }))!.id;
  assert.deepEqual(await find("cherry"), [r]);
  await updateRemoteStatus(s.app, parseApNote({ ...doc, content: "<p>plum pie</p>", updated: new Date().toISOString() }), author);
  assert.deepEqual(await find("cherry"), []);
  assert.deepEqual(await find("plum"), [r]);
  deleteRemoteStatus(s.app, doc.id, author);
  assert.deepEqual(await find("plum"), []);
});

test("an edit that adds or drops a mention puts the post in or out of that person's library", async (t) => {
  const s = await startTestServer();
  t.after(() => s.close());
  const bob = await s.user("bob");
  const carol = await s.user("carol");
  const find = await finder(s, carol);
  // bob has not opted in: carol finds his posts only through her library.
  const p = (await s.api(bob, "POST", "/api/v1/statuses", { status: "walnut harvest" })).id;
  assert.deepEqual(await find("walnut"), []);
  await s.api(bob, "PUT", `/api/v1/statuses/${p}`, { status: "walnut harvest with @carol" });
  assert.deepEqual(await find("walnut"), [p]);
  assert.deepEqual(await find("in:library walnut"), [p]);
  await s.api(bob, "PUT", `/api/v1/statuses/${p}`, { status: "walnut harvest alone" });
  assert.deepEqual(await find("walnut"), []);
  // His own post stays his to find through every edit.
  assert.deepEqual(await (await finder(s, bob))("walnut alone"), [p]);
});

/** A server on a data dir that outlives it (startTestServer removes its own). */
async function serverOn(dataDir: string) {
  const app = createApp(loadConfig(dataDir, { logLevel: "silent", jobsAutorun: false }, {}));
  const running = await startServer(app, { host: "127.0.0.1", port: 0 });
  return { app, running };
}

test("the index survives a restart; an instance upgraded with posts builds it in the background", async (t) => {
  const dataDir = mkdtempSync(join(tmpdir(), "roost-search-"));
  t.after(() => rmSync(dataDir, { recursive: true, force: true }));
  initDataDir(dataDir, { domain: "search.test", protocol: "http" });
  const setup = createApp(loadConfig(dataDir, { logLevel: "silent", jobsAutorun: false }, {}));
  let token: string;
  let ids: string[];
  try {
    const alice = await createUser(setup, { username: "alice", email: "alice@example.test", password: "correct horse battery" });
    token = issueToken(setup, { userId: alice.user.id, applicationId: ensureBuiltinApp(setup, CLI_APP).id, scopes: ["read"] }).token;
    ids = ["durian one", "durian two"].map((text) => createStatus(setup, alice, { text, visibility: "private" }, { applicationId: null }).id);
  } finally {
    await closeApp(setup);
  }
  const find = async (url: string, query: string) => {
    const res = await fetch(`${url}/api/v2/search${q({ q: query, type: "statuses" })}`, { headers: { authorization: `Bearer ${token}` } });
    assert.equal(res.status, 200);
    return ((await res.json()) as { statuses: { id: string }[] }).statuses.map((x) => x.id);
  };

  const first = await serverOn(dataDir);
  try {
    assert.deepEqual(await find(first.running.url, "durian"), [ids[1], ids[0]]);
    // As after the upgrade that added the index: empty, and marked for the background build.
    first.app.db.exec("INSERT INTO status_search (status_search) VALUES ('delete-all')");
    setSetting(first.app.db, PENDING_SETTING, true);
  } finally {
    await first.running.close();
  }

  const second = await serverOn(dataDir);
  try {
    assert.deepEqual(await find(second.running.url, "durian"), []);
    assert.equal(isStatusIndexPending(second.app.db), true);
    await second.app.jobs.drain();
    assert.equal(isStatusIndexPending(second.app.db), false);
    assert.deepEqual(await find(second.running.url, "durian"), [ids[1], ids[0]]);
  } finally {
    await second.running.close();
  }

  const third = await serverOn(dataDir);
  try {
    assert.deepEqual(await find(third.running.url, "durian two"), [ids[1]]);
  } finally {
    await third.running.close();
  }
});

test("bad input is a 4xx or plain text, never a 5xx: huge queries, quotes, garbage operators, dates, offsets", async (t) => {
  const s = await startTestServer();
  t.after(() => s.close());
  const alice = await s.user("alice");
  const viewer = await s.user("viewer");
  await s.api(alice, "PATCH", "/api/v1/accounts/update_credentials", { indexable: true });
  const p = (await s.api(alice, "POST", "/api/v1/statuses", { status: 'he said "unbalanced quotes" from: nowhere' })).id;
  const secret = (await s.api(alice, "POST", "/api/v1/statuses", { status: "secret plans", visibility: "private" })).id;
  const get = (params: Record<string, string>) => s.req(viewer, "GET", `/api/v2/search${q(params)}`);

  const ok = async (query: string, extra: Record<string, string> = {}) => {
    const r = await get({ q: query, ...extra });
    assert.equal(r.status, 200, `${query.slice(0, 50)}: ${r.text.slice(0, 200)}`);
    assert.deepEqual(Object.keys(r.body).sort(), ["accounts", "collections", "hashtags", "statuses"]);
    return r.body.statuses.map((x: { id: string }) => x.id) as string[];
  };
  assert.deepEqual(await ok("x".repeat(10_000)), []);
  assert.deepEqual(await ok(`${"unbalanced ".repeat(1000)}`), [p]);
  assert.deepEqual(await ok('"unbalanced'), [p]);
  assert.deepEqual(await ok('"unbalanced quotes'), [p]);
  assert.deepEqual(await ok("from:"), [p]);
  for (const garbage of ["from:@", "from:@@x@@", "from:%00", `from:${"a".repeat(5000)}`, "has:", "is:🐘", "language:", "in:", "#", "##", "-", "+", "\\", "*", "NEAR(a b)", "a OR b", "col:x"]) {
    await ok(garbage);
  }
  // FTS5 syntax in the query is text: it never reaches posts outside the viewer's scope.
  for (const attack of ['secret") OR meta : ("_scope_public_', `secret OR "_by${alice.id}_"`, 'plans" OR "']) {
    assert.ok(!(await ok(attack)).includes(secret), attack);
  }
  for (const date of ["before:notadate", "after:2024-13-01", "during:yesterday", `before:${"1".repeat(5000)}z`]) {
    const r = await get({ q: `quotes ${date}` });
    assert.equal(r.status, 422, date);
    assert.match(r.body.error, /^Invalid date /);
    assert.ok(r.text.length < 200);
  }
  // The same query without statuses is not refused.
  assert.equal((await get({ q: "quotes before:notadate", type: "accounts" })).status, 200);
  for (const [k, v] of [["offset", "-1"], ["offset", "-99999999999999999999"]]) {
    const r = await get({ q: "quotes", type: "statuses", [k]: v });
    assert.equal(r.status, 400, `${k}=${v}`);
    assert.equal(r.body.error, "Pagination values for `offset` and `limit` must be positive");
  }
  const odd: Record<string, string>[] = [{ limit: "-5" }, { limit: "abc" }, { offset: "abc" }, { min_id: "x" }, { max_id: "-1" }, { account_id: "garbage" }, { type: "statuses\u0000" }];
  for (const params of odd) {
    const r = await get({ q: "quotes", type: "statuses", ...params });
    assert.ok(r.status < 500, `${JSON.stringify(params)} → ${r.status}`);
  }
  // GET /api/v1/search stays removed.
  assert.equal((await s.req(viewer, "GET", `/api/v1/search${q({ q: "quotes" })}`)).status, 404);
});
