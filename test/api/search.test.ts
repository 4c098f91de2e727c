// GET /api/v2/search and GET /api/v1/accounts/search: token required (seed), handles and URLs
// resolved with resolve=true, accounts that block the viewer hidden, rich Tag entities, and
// well-formed answers for queries with operators.
import { test } from "node:test";
import assert from "node:assert/strict";
import { startTestServer } from "../helpers/server.ts";
import { startFakeRemote } from "../helpers/fake-remote.ts";
import { blockDomain } from "../../src/services/account-domain-blocks.ts";
import { findAccountByUri } from "../../src/storage/accounts.ts";

const AS = "https://www.w3.org/ns/activitystreams";
const q = (params: Record<string, string>) => "?" + new URLSearchParams(params).toString();

test("search needs a token, a q and a non-negative offset; errors are Mastodon's JSON", async (t) => {
  const s = await startTestServer();
  t.after(() => s.close());
  const alice = await s.user("alice");
  const anon = await s.req(null, "GET", "/api/v2/search?q=alice");
  assert.equal(anon.status, 401);
  assert.deepEqual(anon.body, { error: "The access token is invalid" });
  assert.equal((await s.req(null, "GET", "/api/v1/accounts/search?q=alice")).status, 401);

  const noQ = await s.req(alice, "GET", "/api/v2/search");
  assert.equal(noQ.status, 400);
  assert.equal(noQ.body.error, "param is missing or the value is empty: q");
  const neg = await s.req(alice, "GET", "/api/v2/search?q=a&type=accounts&offset=-1");
  assert.equal(neg.status, 400);
  assert.equal(neg.body.error, "Pagination values for `offset` and `limit` must be positive");

  const readOnlyStatuses = await s.user("reader", { scopes: ["read:statuses"] });
  assert.equal((await s.req(readOnlyStatuses, "GET", "/api/v2/search?q=a")).status, 403);
  const searchScope = await s.user("searcher", { scopes: ["read:search"] });
  assert.equal((await s.req(searchScope, "GET", "/api/v2/search?q=a")).status, 200);
});

test("queries with operators or odd syntax answer 200 with every key", async (t) => {
  const s = await startTestServer();
  t.after(() => s.close());
  const alice = await s.user("alice");
  await s.user("bob");
  for (const query of ["from:bob", "from:", "from:@bob@nowhere.example hello", '-has:media "unterminated', "from:me is:reply language:en", "@", "#", ":", "%_\\"]) {
    const r = await s.req(alice, "GET", `/api/v2/search${q({ q: query })}`);
    assert.equal(r.status, 200, query);
    assert.deepEqual(Object.keys(r.body).sort(), ["accounts", "collections", "hashtags", "statuses"], query);
    assert.deepEqual(r.body.statuses, [], query);
  }
  // Operators are not account names: `from:bob` finds no account, the words around it still count.
  assert.deepEqual((await s.api(alice, "GET", `/api/v2/search${q({ q: "from:bob" })}`)).accounts, []);
  assert.deepEqual(
    (await s.api(alice, "GET", `/api/v2/search${q({ q: "from:me bo", type: "accounts" })}`)).accounts.map((a: any) => a.username),
    ["bob"],
  );
  const unknownType = await s.api(alice, "GET", `/api/v2/search${q({ q: "bob", type: "collections" })}`);
  assert.deepEqual(unknownType.accounts, []);
});

test("accounts: prefix on username and display-name words, exact first, blockers and suspended ones left out", async (t) => {
  const s = await startTestServer();
  const remote = await startFakeRemote();
  t.after(() => Promise.all([s.close(), remote.close()]));
  const viewer = await s.user("viewer");
  const al = await s.user("al", { displayName: "Plain" });
  const alba = await s.user("alba");
  const blocked = await s.user("albert");
  const blocker = await s.user("alfred");
  const zed = await s.user("zed");
  await s.api(viewer, "PATCH", "/api/v1/accounts/update_credentials", { display_name: "Viewer" });
  await s.api(zed, "PATCH", "/api/v1/accounts/update_credentials", { display_name: "Zed Alpaca" });
  await s.api(viewer, "POST", `/api/v1/accounts/${blocked.id}/block`);
  await s.api(blocker, "POST", `/api/v1/accounts/${viewer.id}/block`);
  remote.actor("alpine", { extra: { suspended: true } });
  const r0 = await s.api(viewer, "GET", `/api/v2/search${q({ q: `alpine@${remote.domain}`, resolve: "true" })}`);
  assert.deepEqual(r0.accounts, []);
  assert.ok(findAccountByUri(s.app.db, `${remote.origin}/users/alpine`)?.suspendedAt);

  // albert, whom the viewer blocked, is found; alfred, who blocked the viewer, is not.
  const r = await s.api(viewer, "GET", `/api/v2/search${q({ q: "al", type: "accounts" })}`);
  assert.deepEqual(r.accounts.map((a: any) => a.username), ["al", "alba", "albert", "zed"]);
  assert.equal(r.accounts[0].id, al.id);
  assert.deepEqual(r.hashtags, []);

  // `@`-prefixed, paged, and only followed accounts.
  const paged = await s.api(viewer, "GET", `/api/v2/search${q({ q: "@al", type: "accounts", limit: "1", offset: "1" })}`);
  assert.deepEqual(paged.accounts.map((a: any) => a.id), [alba.id]);
  await s.api(viewer, "POST", `/api/v1/accounts/${zed.id}/follow`);
  const followed = await s.api(viewer, "GET", `/api/v1/accounts/search${q({ q: "al", following: "true" })}`);
  assert.deepEqual(followed.map((a: any) => a.username), ["zed"]);
  const v1 = await s.api(viewer, "GET", `/api/v1/accounts/search${q({ q: "alb" })}`);
  assert.deepEqual(v1.map((a: any) => a.username), ["alba", "albert"]);
});

test("accounts the viewer blocks or mutes stay findable with their relationship; those blocking the viewer do not", async (t) => {
  const s = await startTestServer();
  const remote = await startFakeRemote();
  t.after(() => Promise.all([s.close(), remote.close()]));
  const viewer = await s.user("viewer");
  const blocked = await s.user("blocked");
  const muted = await s.user("muted");
  const blocker = await s.user("blocker");
  const far = remote.actor("faraway");
  const farHandle = `faraway@${remote.domain}`;
  await s.api(viewer, "GET", `/api/v2/search${q({ q: farHandle, resolve: "true" })}`);
  await s.api(viewer, "POST", `/api/v1/accounts/${blocked.id}/block`);
  await s.api(viewer, "POST", `/api/v1/accounts/${muted.id}/mute`);
  // Through the service: the API refuses a host with a port until issue 9's domain part lands.
  blockDomain(s.app, viewer.account, remote.domain);
  await s.api(blocker, "POST", `/api/v1/accounts/${viewer.id}/block`);
  const blockerPost = await s.api(blocker, "POST", "/api/v1/statuses", { status: "not for the viewer" });
  const blockedPost = await s.api(blocked, "POST", "/api/v1/statuses", { status: "still reachable by its link" });

  // What toot's unblock/unmute/follow do: accounts/search with the exact handle, resolve=true.
  const findOne = async (acct: string) =>
    (await s.api(viewer, "GET", `/api/v1/accounts/search${q({ q: acct, resolve: "true", limit: "1" })}`)).map((a: any) => a.acct);
  assert.deepEqual(await findOne("blocked"), ["blocked"]);
  assert.deepEqual(await findOne(`blocked@${new URL(s.url).host}`), ["blocked"]);
  assert.deepEqual(await findOne("muted"), ["muted"]);
  assert.deepEqual(await findOne(farHandle), [farHandle]);
  assert.deepEqual(await findOne("blocker"), []);
  assert.deepEqual(await findOne(`blocker@${new URL(s.url).host}`), []);

  // v2 search: by prefix, by exact handle, and by profile URL.
  const v2 = await s.api(viewer, "GET", `/api/v2/search${q({ q: "b", type: "accounts" })}`);
  assert.deepEqual(v2.accounts.map((a: any) => a.username), ["blocked"]);
  const exact = await s.api(viewer, "GET", `/api/v2/search${q({ q: `@${farHandle}` })}`);
  assert.deepEqual(exact.accounts.map((a: any) => a.id), [findAccountByUri(s.app.db, far.id)!.id]);
  const byUrl = await s.api(viewer, "GET", `/api/v2/search${q({ q: `${s.url}/@blocked`, resolve: "true" })}`);
  assert.deepEqual(byUrl.accounts.map((a: any) => a.id), [blocked.id]);
  assert.deepEqual((await s.api(viewer, "GET", `/api/v2/search${q({ q: `${s.url}/@blocker`, resolve: "true" })}`)).accounts, []);

  // The relationship says why, so the client can offer to undo it.
  const ids = [blocked.id, muted.id, exact.accounts[0].id];
  const rels = await s.api(viewer, "GET", `/api/v1/accounts/relationships?${ids.map((id) => `id[]=${id}`).join("&")}`);
  assert.deepEqual(
    rels.map((r: any) => [r.blocking, r.muting, r.domain_blocking]),
    [
      [true, false, false],
      [false, true, false],
      [false, false, true],
    ],
  );
  await s.api(viewer, "POST", `/api/v1/accounts/${blocked.id}/unblock`);
  assert.equal((await s.api(viewer, "GET", `/api/v1/accounts/relationships?id[]=${blocked.id}`))[0].blocking, false);

  // Statuses: a post by an account that blocks the viewer is never found; a post by one the
  // viewer blocks opens by its URL, as Mastodon's ResolveURLService authorises it (show?).
  assert.deepEqual((await s.api(viewer, "GET", `/api/v2/search${q({ q: blockerPost.url })}`)).statuses, []);
  await s.api(viewer, "POST", `/api/v1/accounts/${blocked.id}/block`);
  assert.deepEqual((await s.api(viewer, "GET", `/api/v2/search${q({ q: blockedPost.url })}`)).statuses.map((x: any) => x.id), [blockedPost.id]);
});

test("accounts: an exact remote handle with resolve=true is fetched and stored; without it only known ones", async (t) => {
  const s = await startTestServer();
  const remote = await startFakeRemote();
  t.after(() => Promise.all([s.close(), remote.close()]));
  const alice = await s.user("alice");
  const bob = remote.actor("bob", { extra: { name: "Bob Remote" } });
  const handle = `@bob@${remote.domain}`;

  const before = await s.api(alice, "GET", `/api/v2/search${q({ q: handle })}`);
  assert.deepEqual(before.accounts, []);
  assert.equal(remote.requests.length, 0);

  const r = await s.api(alice, "GET", `/api/v2/search${q({ q: handle, resolve: "true" })}`);
  assert.equal(r.accounts.length, 1);
  assert.equal(r.accounts[0].acct, `bob@${remote.domain}`);
  assert.equal(r.accounts[0].display_name, "Bob Remote");
  assert.equal(r.accounts[0].uri, bob.id);
  assert.ok(findAccountByUri(s.app.db, bob.id));

  // Known now: found without resolve, by handle and by prefix.
  assert.equal((await s.api(alice, "GET", `/api/v2/search${q({ q: handle })}`)).accounts[0].uri, bob.id);
  assert.equal((await s.api(alice, "GET", `/api/v1/accounts/search${q({ q: "bo" })}`))[0].uri, bob.id);

  // An unreachable server: v2 search finds nothing, accounts/search says so (503).
  const dead = "127.0.0.1:1";
  assert.deepEqual((await s.api(alice, "GET", `/api/v2/search${q({ q: `x@${dead}`, resolve: "true" })}`)).accounts, []);
  const strict = await s.req(alice, "GET", `/api/v1/accounts/search${q({ q: `x@${dead}`, resolve: "true" })}`);
  assert.equal(strict.status, 503);
  assert.deepEqual(strict.body, { error: "Remote data could not be fetched" });
});

test("hashtags: prefix of the normalised name, rich Tag entities with seven days of history", async (t) => {
  const s = await startTestServer();
  t.after(() => s.close());
  const alice = await s.user("alice");
  const bob = await s.user("bob");
  await s.api(alice, "POST", "/api/v1/statuses", { status: "Out #Birding today #birds" });
  await s.api(bob, "POST", "/api/v1/statuses", { status: "#birds again" });
  await s.api(bob, "POST", "/api/v1/statuses", { status: "#birds secret", visibility: "private" });

  const r = await s.api(alice, "GET", `/api/v2/search${q({ q: "#BIRD" })}`);
  assert.deepEqual(r.hashtags.map((h: any) => h.name), ["birds", "Birding"]);
  const birds = r.hashtags[0];
  assert.match(birds.id, /^\d+$/);
  assert.equal(birds.url, `${s.url}/tags/birds`);
  assert.equal(birds.following, false);
  assert.equal(birds.featuring, false);
  assert.equal(birds.history.length, 7);
  const today = Math.floor(Date.now() / 86_400_000) * 86_400;
  assert.deepEqual(birds.history[0], { day: String(today), uses: "2", accounts: "2" });
  assert.deepEqual(birds.history[1], { day: String(today - 86_400), uses: "0", accounts: "0" });

  const exact = await s.api(alice, "GET", `/api/v2/search${q({ q: "birds", type: "hashtags" })}`);
  assert.equal(exact.hashtags[0].name, "birds");
  assert.deepEqual(exact.accounts, []);
  const reviewed = await s.api(alice, "GET", `/api/v2/search${q({ q: "bird", exclude_unreviewed: "true" })}`);
  assert.deepEqual(reviewed.hashtags, []);
  const paged = await s.api(alice, "GET", `/api/v2/search${q({ q: "bird", type: "hashtags", offset: "1" })}`);
  assert.deepEqual(paged.hashtags.map((h: any) => h.name), ["Birding"]);
});

test("statuses: a URL resolves (fetched with resolve=true) and is shown only when the viewer may see it", async (t) => {
  const s = await startTestServer();
  const remote = await startFakeRemote();
  t.after(() => Promise.all([s.close(), remote.close()]));
  const alice = await s.user("alice");
  const bob = remote.actor("bob");
  const o = remote.origin;
  const note = (n: number, to: string[]) => ({
    "@context": AS,
    id: `${o}/users/bob/statuses/${n}`,
    type: "Note",
    attributedTo: bob.id,
    content: `<p>Hello ${n}</p>`,
    published: "2026-01-02T03:04:05Z",
    url: `${o}/@bob/${n}`,
    to,
    cc: [],
  });
  remote.serve("/users/bob/statuses/1", note(1, [`${AS}#Public`]));
  remote.serve("/@bob/1", note(1, [`${AS}#Public`]));
  remote.serve("/users/bob/statuses/2", note(2, [bob.followers]));

  const unresolved = await s.api(alice, "GET", `/api/v2/search${q({ q: `${o}/@bob/1` })}`);
  assert.deepEqual(unresolved.statuses, []);

  // The web URL answers with the Note, which is fetched again from its id.
  const r = await s.api(alice, "GET", `/api/v2/search${q({ q: `${o}/@bob/1`, resolve: "true" })}`);
  assert.equal(r.statuses.length, 1);
  assert.equal(r.statuses[0].uri, `${o}/users/bob/statuses/1`);
  assert.equal(r.statuses[0].account.acct, `bob@${remote.domain}`);
  assert.deepEqual(r.accounts, []);
  assert.deepEqual(r.hashtags, []);
  // Known now: by uri or URL without resolve; account_id filters by author.
  const known = await s.api(alice, "GET", `/api/v2/search${q({ q: `${o}/users/bob/statuses/1` })}`);
  assert.equal(known.statuses[0].id, r.statuses[0].id);
  const other = await s.api(alice, "GET", `/api/v2/search${q({ q: `${o}/users/bob/statuses/1`, account_id: alice.id })}`);
  assert.deepEqual(other.statuses, []);

  // A followers-only post is stored but not shown to a non-follower.
  const hidden = await s.api(alice, "GET", `/api/v2/search${q({ q: `${o}/users/bob/statuses/2`, resolve: "true" })}`);
  assert.deepEqual(hidden.statuses, []);

  // An actor URL finds the account; a local status URL finds the local post.
  const actor = await s.api(alice, "GET", `/api/v2/search${q({ q: bob.id, resolve: "true" })}`);
  assert.equal(actor.accounts[0].uri, bob.id);
  const mine = await s.api(alice, "POST", "/api/v1/statuses", { status: "local post" });
  const local = await s.api(alice, "GET", `/api/v2/search${q({ q: mine.url })}`);
  assert.equal(local.statuses[0].id, mine.id);
  assert.deepEqual((await s.api(alice, "GET", `/api/v2/search${q({ q: mine.url, type: "accounts" })}`)).statuses, []);
  // Garbage URLs and unreachable ones: nothing, never an error.
  for (const url of [`${o}/nothing`, "http://127.0.0.1:1/x", "https://"]) {
    const g = await s.req(alice, "GET", `/api/v2/search${q({ q: url, resolve: "true" })}`);
    assert.equal(g.status, 200, url);
  }
});

test("names a typo away: accounts and hashtags the prefix misses, never for a handle or a look-up", async (t) => {
  const s = await startTestServer();
  t.after(() => s.close());
  const viewer = await s.user("viewer");
  const alice = await s.user("alice");
  await s.user("alicia");
  await s.api(alice, "PATCH", "/api/v1/accounts/update_credentials", { display_name: "Wonderland Explorer" });
  await s.api(alice, "POST", "/api/v1/statuses", { status: "#fediverse #birdwatching" });
  const names = async (query: string, extra: Record<string, string> = {}) =>
    (await s.api(viewer, "GET", `/api/v2/search${q({ q: query, type: "accounts", ...extra })}`)).accounts.map((a: any) => a.username);

  // Prefix matches first; a word one edit away when they are too few.
  assert.deepEqual(await names("alic"), ["alice", "alicia"]);
  assert.deepEqual(await names("alcie"), ["alice"]);
  assert.deepEqual(await names("wonderlnad"), ["alice"]);
  assert.deepEqual(await names("explorr"), ["alice"]);
  assert.deepEqual((await s.api(viewer, "GET", `/api/v1/accounts/search${q({ q: "alcie" })}`)).map((a: any) => a.username), ["alice"]);
  // Not for short words, handles, look-ups (clients act on the first account found) or later pages.
  assert.deepEqual(await names("alx"), []);
  assert.deepEqual(await names(`alcie@${s.app.config.domain}`), []);
  assert.deepEqual(await names("alcie", { resolve: "true" }), []);
  assert.deepEqual(await names("alcie", { offset: "1" }), []);
  assert.deepEqual((await s.api(viewer, "GET", `/api/v1/accounts/search${q({ q: "alcie", resolve: "true", limit: "1" })}`)), []);

  // A new display name is found at once (the name index follows the accounts table), typos too.
  await s.api(alice, "PATCH", "/api/v1/accounts/update_credentials", { display_name: "Looking Glass" });
  assert.deepEqual(await names("looking"), ["alice"]);
  assert.deepEqual(await names("lookign"), ["alice"]);
  assert.deepEqual(await names("wonderland"), []);

  const tags = async (query: string, extra: Record<string, string> = {}) =>
    (await s.api(viewer, "GET", `/api/v2/search${q({ q: query, type: "hashtags", ...extra })}`)).hashtags.map((h: any) => h.name);
  assert.deepEqual(await tags("#fediverso"), ["fediverse"]);
  assert.deepEqual(await tags("birdwathcing"), ["birdwatching"]);
  assert.deepEqual(await tags("#fediverso", { exclude_unreviewed: "true" }), []);
  await s.api(alice, "POST", "/api/v1/statuses", { status: "#mastodonting" });
  assert.deepEqual(await tags("#mastodontinf"), ["mastodonting"]);
});

test("accounts: exact usernames, then followed accounts, then local and most followed; every page of every size agrees", async (t) => {
  const s = await startTestServer();
  t.after(() => s.close());
  const viewer = await s.user("viewer");
  const ali = await s.user("ali");
  const alix = await s.user("alix");
  const db = s.app.db;
  const remote = (username: string, domain: string, followersCount: number, displayName = "") => {
    const id = s.app.ids.next();
    const uri = `https://${domain}/users/${username}`;
    db.prepare(
      `INSERT INTO accounts (id, username, domain, display_name, uri, url, inbox_url, followers_count, created_at, updated_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, 0, 0)`,
    ).run(BigInt(id), username, domain, displayName, uri, uri, `${uri}/inbox`, followersCount);
    return id;
  };
  const follow = (id: string) =>
    db.prepare("INSERT INTO follows (account_id, target_account_id, uri, created_at, updated_at) VALUES (?, ?, ?, 0, 0)").run(BigInt(viewer.id), BigInt(id), `https://x.example/f/${id}`);
  const aliPeer1 = remote("ali", "peer1.example", 5);
  const aliPeer2 = remote("ali", "peer2.example", 1);
  const alina = [7, 3, 9, 1, 4, 2].map((n, i) => remote(`alina${i}`, "peer1.example", n));
  const zz = remote("zz", "peer3.example", 50, "Ali Z");
  const suspended = remote("alisus", "peer3.example", 99);
  db.prepare("UPDATE accounts SET suspended_at = 1 WHERE id = ?").run(BigInt(suspended));
  remote("bob", "peer1.example", 100, "Bob Alder"); // `al` matches its display name, `ali` does not
  follow(aliPeer2);
  follow(alina[1]);
  follow(zz);
  // Enough matches that the page is read in parts (storage/account-search.ts) rather than by
  // ranking every match: these come last (remote, no followers), oldest first.
  const fillers = Array.from({ length: 320 }, (_, i) => remote(`alifill${i}`, "peer4.example", 0));

  const all = [
    aliPeer2, ali.id, aliPeer1, // exact usernames: followed, local, then the most followed
    zz, alina[1], // followed accounts, the most followed first
    alix.id, alina[2], alina[0], alina[4], alina[5], alina[3], // local first, then the most followed
    ...fillers,
  ];
  const ids = async (params: Record<string, string>) => (await s.api(viewer, "GET", `/api/v1/accounts/search${q({ q: "ali", ...params })}`)).map((a: any) => a.id);
  assert.deepEqual(await ids({ limit: "40" }), all.slice(0, 40));
  const v2 = await s.api(viewer, "GET", `/api/v2/search${q({ q: "ali", type: "accounts", limit: "40", offset: "3" })}`);
  assert.deepEqual(v2.accounts.map((a: any) => a.id), all.slice(3, 43));
  // The last page, short: the end of the matches.
  assert.deepEqual(await ids({ limit: "40", offset: String(all.length - 3) }), all.slice(-3));
  for (const limit of [1, 2, 3, 4]) {
    for (let offset = 0; offset <= 13; offset++) {
      assert.deepEqual(await ids({ limit: String(limit), offset: String(offset) }), all.slice(offset, offset + limit), `limit ${limit} offset ${offset}`);
    }
  }
  assert.deepEqual(await ids({ limit: "40", following: "true" }), [aliPeer2, zz, alina[1]]);
  assert.deepEqual(await ids({ limit: "2", offset: "1", following: "true" }), [zz, alina[1]]);
});
