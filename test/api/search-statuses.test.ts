// GET /api/v2/search for statuses: every operator of the query language and every parameter,
// each with posts it must find and posts it must not. Remote posts come in the way the inbox
// stores them (published in March 2024, so dates can be told apart).
import { test } from "node:test";
import assert from "node:assert/strict";
import { parseApNote } from "../../src/federation/parse/note.ts";
import { createRemoteStatus } from "../../src/federation/remote-statuses.ts";
import { startFakeRemote } from "../helpers/fake-remote.ts";
import { startTestServer, type TestUser } from "../helpers/server.ts";
import { remoteAccountOf, PUBLIC } from "../federation/remote-status-helpers.ts";

const q = (params: Record<string, string>) => "?" + new URLSearchParams(params).toString();

test("the query language: words, phrases, exclusions, from:, has:, is:, language:, dates, in:, hashtags", async (t) => {
  const s = await startTestServer();
  const remote = await startFakeRemote();
  t.after(() => Promise.all([s.close(), remote.close()]));
  const alice = await s.user("alice");
  const bob = await s.user("bob");
  const carol = await s.user("carol");
  for (const u of [alice, bob]) await s.api(u, "PATCH", "/api/v1/accounts/update_credentials", { indexable: true });
  const post = async (u: TestUser, status: string, extra: Record<string, unknown> = {}) =>
    (await s.api(u, "POST", "/api/v1/statuses", { status, language: "en", ...extra })).id as string;

  // Remote posts by rita (indexable), with media, on three days of March 2024.
  const rita = remote.actor("rita", { extra: { indexable: true } });
  const author = await remoteAccountOf(s, rita);
  const media = (type: string, n: number) => ({ type: "Document", mediaType: type, url: `${remote.origin}/m/${n}`, name: `file ${n}` });
  const remotePost = async (n: number, day: string, content: string, attachment: object[]) => {
    const doc = {
      "@context": "https://www.w3.org/ns/activitystreams",
      id: `${rita.id}/statuses/${n}`,
      type: "Note",
      attributedTo: rita.id,
      content,
      published: `${day}T12:00:00Z`,
      to: [PUBLIC],
      cc: [rita.followers],
      attachment,
    };
    return (await createRemoteStatus(s.app, parseApNote(doc), author, { fetched: true }))!.id;
  };
  const r1 = await remotePost(1, "2024-03-10", "<p>coffee picture</p>", [media("image/png", 1)]);
  const r2 = await remotePost(2, "2024-03-12", "<p>coffee video</p>", [media("video/mp4", 2)]);
  const r3 = await remotePost(3, "2024-03-14", "<p>coffee podcast</p>", [media("audio/mpeg", 3)]);

  const a1 = await post(alice, "Morning coffee with cats #Latte");
  const a2 = await post(alice, "Cats and dogs are friends");
  const a3 = await post(alice, "More coffee please", { in_reply_to_id: a1 });
  const a4 = await post(alice, "Spicy coffee", { sensitive: true });
  const a5 = await post(alice, "Which coffee?", { poll: { options: ["espresso", "green tea"], expires_in: 3600 } });
  const a6 = await post(alice, "Read about coffee https://example.com/beans");
  const a7 = await post(alice, "Watch coffee being made https://youtu.be/abc123");
  const a8 = await post(alice, "Kaffee am Morgen", { language: "de" });
  const b1 = await post(bob, "coffee from bob");
  const c1 = await post(carol, "my secret coffee stash", { visibility: "private" });

  const find = async (query: string, extra: Record<string, string> = {}) => {
    const r = await s.req(carol, "GET", `/api/v2/search${q({ q: query, type: "statuses", ...extra })}`);
    assert.equal(r.status, 200, `${query}: ${r.text}`);
    return r.body.statuses.map((x: { id: string }) => x.id);
  };
  const everyCoffee = [c1, b1, a7, a6, a5, a4, a3, a1, r3, r2, r1];

  // Words (stemmed: "cat" finds "cats"), newest first; phrases; exclusions; `+`.
  assert.deepEqual(await find("coffee"), everyCoffee);
  assert.deepEqual(await find("cat"), [a2, a1]);
  assert.deepEqual(await find("cats coffee"), [a1]);
  assert.deepEqual(await find('"morning coffee"'), [a1]);
  assert.deepEqual(await find('"coffee morning"'), []);
  assert.deepEqual(await find("cats -dogs"), [a1]);
  assert.deepEqual(await find('coffee -"with cats" -bob'), [c1, a7, a6, a5, a4, a3, r3, r2, r1]);
  assert.deepEqual(await find("+cats +dogs"), [a2]);
  // Poll options and media descriptions are text too (Mastodon's searchable_text).
  assert.deepEqual(await find("espresso"), [a5]);
  assert.deepEqual(await find('"file 2"'), [r2]);
  // Hashtags: `#name` is the tag (any case), the bare word the text.
  assert.deepEqual(await find("#latte"), [a1]);
  assert.deepEqual(await find("#LATTE coffee"), [a1]);
  assert.deepEqual(await find("-#latte cats"), [a2]);

  // from: me, a local user (with or without @ and our domain), a remote handle, negated.
  const host = s.app.config.domain;
  assert.deepEqual(await find("from:me coffee"), [c1]);
  assert.deepEqual(await find("from:bob coffee"), [b1]);
  assert.deepEqual(await find(`from:@bob@${host}`), [b1]);
  assert.deepEqual(await find(`from:rita@${remote.domain}`), [r3, r2, r1]);
  assert.deepEqual(await find("-from:alice coffee"), [c1, b1, r3, r2, r1]);
  for (const nobody of ["from:nobody coffee", "from:@@@ coffee", `from:x@y@z coffee`, "from:\u0000 coffee"]) assert.deepEqual(await find(nobody), [], nobody);

  // has: and is: (Mastodon's searchable_properties).
  assert.deepEqual(await find("has:media"), [r3, r2, r1]);
  assert.deepEqual(await find("has:image"), [r1]);
  assert.deepEqual(await find("has:video"), [r2]);
  assert.deepEqual(await find("has:audio coffee"), [r3]);
  assert.deepEqual(await find("has:poll"), [a5]);
  assert.deepEqual(await find("has:link"), [a7, a6]);
  assert.deepEqual(await find("has:embed"), [a7]);
  assert.deepEqual(await find("is:reply"), [a3]);
  assert.deepEqual(await find("is:sensitive"), [a4]);
  assert.deepEqual(await find("coffee -has:media -has:link -is:reply -is:sensitive -has:poll"), [c1, b1, a1]);
  assert.deepEqual(await find("has:unicorns coffee"), []);

  // language: as stored, whatever the case or region.
  assert.deepEqual(await find("language:de"), [a8]);
  assert.deepEqual(await find("language:DE-at"), [a8]);
  assert.deepEqual(await find("language:en cats"), [a2, a1]);
  assert.deepEqual(await find("-language:en -language:de coffee"), [r3, r2, r1]);

  // Dates (UTC days): before the day began, after it ended, during it.
  assert.deepEqual(await find("coffee before:2024-03-12"), [r1]);
  assert.deepEqual(await find("coffee after:2024-03-12 before:2024-03-20"), [r3]);
  assert.deepEqual(await find("coffee during:2024-03-12"), [r2]);
  assert.deepEqual(await find("has:media -during:2024-03-12"), [r3, r1]);
  assert.deepEqual(await find(`coffee after:${Date.parse("2024-03-12T11:00:00Z")} before:2024-03-13`), [r2]);

  // in: the viewer's library (own posts, favourites...) or the public posts of opted-in authors.
  await s.api(carol, "POST", `/api/v1/statuses/${a2}/favourite`);
  assert.deepEqual(await find("in:library"), [c1, a2]);
  assert.deepEqual(await find("in:library cats"), [a2]);
  assert.deepEqual(await find("in:public coffee"), [b1, a7, a6, a5, a4, a3, a1, r3, r2, r1]);
  assert.deepEqual(await find("in:everything cats"), [a2, a1]);
  // Nothing but characters that are no words: nothing is asked, nothing found.
  assert.deepEqual(await find("!!! ..."), []);
});

test("parameters: type, limit, offset, min_id, max_id, account_id; offsets need a type", async (t) => {
  const s = await startTestServer();
  t.after(() => s.close());
  const alice = await s.user("alice");
  const bob = await s.user("bob");
  const viewer = await s.user("viewer");
  for (const u of [alice, bob]) await s.api(u, "PATCH", "/api/v1/accounts/update_credentials", { indexable: true });
  const ids: string[] = [];
  for (let i = 0; i < 6; i++) ids.push((await s.api(i % 2 ? bob : alice, "POST", "/api/v1/statuses", { status: `tea number ${i}` })).id);
  const newest = [...ids].reverse();
  const get = async (params: Record<string, string>) => (await s.api(viewer, "GET", `/api/v2/search${q({ q: "tea", ...params })}`)) as any;
  const statusIds = async (params: Record<string, string>) => (await get(params)).statuses.map((x: { id: string }) => x.id);

  const all = await get({});
  assert.deepEqual(all.statuses.map((x: { id: string }) => x.id), newest);
  assert.deepEqual(await statusIds({ type: "statuses", limit: "2" }), newest.slice(0, 2));
  assert.deepEqual(await statusIds({ type: "statuses", limit: "2", offset: "2" }), newest.slice(2, 4));
  assert.deepEqual(await statusIds({ type: "statuses", offset: "5" }), newest.slice(5));
  // Without a type, Mastodon ignores the offset.
  assert.deepEqual(await statusIds({ offset: "4" }), newest);
  assert.deepEqual(await statusIds({ type: "accounts" }), []);
  assert.deepEqual(await statusIds({ type: "hashtags" }), []);
  // min_id / max_id bound the ids (exclusive).
  assert.deepEqual(await statusIds({ type: "statuses", max_id: ids[3] }), [ids[2], ids[1], ids[0]]);
  assert.deepEqual(await statusIds({ type: "statuses", min_id: ids[3] }), [ids[5], ids[4]]);
  assert.deepEqual(await statusIds({ type: "statuses", min_id: ids[1], max_id: ids[4] }), [ids[3], ids[2]]);
  // account_id: only that author's (also with operators in q).
  assert.deepEqual(await statusIds({ type: "statuses", account_id: bob.id }), [ids[5], ids[3], ids[1]]);
  assert.deepEqual(await statusIds({ type: "statuses", account_id: bob.id, limit: "1", offset: "1" }), [ids[3]]);
  assert.deepEqual(await statusIds({ type: "statuses", account_id: "999999" }), []);
  // The entities are full statuses, as the viewer sees them.
  assert.equal(all.statuses[0].account.id, bob.id);
  assert.equal(all.statuses[0].favourited, false);
});

test("two words, and words whose newest hits are out of the viewer's scope (other people's libraries)", async (t) => {
  const s = await startTestServer();
  t.after(() => s.close());
  const alice = await s.user("alice");
  const bob = await s.user("bob");
  const carol = await s.user("carol");
  await s.api(alice, "PATCH", "/api/v1/accounts/update_credentials", { indexable: true });
  const post = async (u: TestUser, status: string) => (await s.api(u, "POST", "/api/v1/statuses", { status })).id as string;
  const a1 = await post(alice, "a quokka on the island");
  const a2 = await post(alice, "a quokka");
  const a3 = await post(alice, "an island");
  // bob has not opted in: his public posts are in his library only, and they are the newest hits.
  const bobs: string[] = [];
  for (let i = 0; i < 30; i++) bobs.push(await post(bob, `quokka island number ${i}`));
  const find = async (who: TestUser, query: string, extra: Record<string, string> = {}) => {
    const r = await s.req(who, "GET", `/api/v2/search${q({ q: query, type: "statuses", ...extra })}`);
    assert.equal(r.status, 200, `${query}: ${r.text}`);
    return r.body.statuses.map((x: { id: string }) => x.id) as string[];
  };

  assert.deepEqual(await find(carol, "quokka island"), [a1]);
  assert.deepEqual(await find(carol, "island quokka"), [a1]);
  assert.deepEqual(await find(carol, "quokka"), [a2, a1]);
  assert.deepEqual(await find(carol, "island"), [a3, a1]);
  assert.deepEqual(await find(carol, '"island quokka"'), []);
  assert.deepEqual(await find(carol, "quokka island -number"), [a1]);
  assert.deepEqual(await find(carol, "in:public quokka island"), [a1]);
  assert.deepEqual(await find(carol, "in:library quokka island"), []);
  assert.deepEqual(await find(carol, "quokka island", { limit: "1", offset: "1" }), []);
  // bob finds his own (his library) and alice's, newest first, page after page.
  const bobFinds = [...bobs].reverse().concat(a1);
  assert.deepEqual(await find(bob, "quokka island", { limit: "40" }), bobFinds);
  assert.deepEqual(await find(bob, "quokka island", { limit: "5", offset: "27" }), bobFinds.slice(27));
  assert.deepEqual(await find(bob, "in:library quokka island", { limit: "40" }), [...bobs].reverse());
  assert.deepEqual(await find(bob, "in:public island quokka"), [a1]);
  // One of bob's posts in carol's library (a favourite), among the newest hits.
  await s.api(carol, "POST", `/api/v1/statuses/${bobs[3]}/favourite`);
  assert.deepEqual(await find(carol, "quokka island"), [bobs[3], a1]);
  assert.deepEqual(await find(carol, "quokka"), [bobs[3], a2, a1]);
  assert.deepEqual(await find(carol, "quokka island", { limit: "1", offset: "1" }), [a1]);
  assert.deepEqual(await find(carol, "in:library quokka island"), [bobs[3]]);
  // The entities are those GET /api/v1/statuses/:id shows the viewer (favourited included).
  const page = (await s.api(carol, "GET", `/api/v2/search${q({ q: "quokka island", type: "statuses" })}`)) as any;
  assert.deepEqual(page.statuses, [await s.api(carol, "GET", `/api/v1/statuses/${bobs[3]}`), await s.api(carol, "GET", `/api/v1/statuses/${a1}`)]);
  assert.equal(page.statuses[0].favourited, true);
  assert.deepEqual([page.accounts, page.hashtags, page.collections], [[], [], []]);
});

test("a silenced author's posts are found by followers only, a suspended author's by nobody", async (t) => {
  const s = await startTestServer();
  t.after(() => s.close());
  const mod = await s.user("mod", { role: "moderator", scopes: ["read", "write", "follow", "admin:read", "admin:write"] });
  const loud = await s.user("loud");
  const gone = await s.user("gone");
  const fan = await s.user("fan");
  const other = await s.user("other");
  for (const u of [loud, gone]) await s.api(u, "PATCH", "/api/v1/accounts/update_credentials", { indexable: true });
  const l1 = (await s.api(loud, "POST", "/api/v1/statuses", { status: "wombat burrow" })).id as string;
  const g1 = (await s.api(gone, "POST", "/api/v1/statuses", { status: "wombat burrow too" })).id as string;
  await s.api(fan, "POST", `/api/v1/accounts/${loud.id}/follow`);
  const find = async (who: TestUser) =>
    ((await s.api(who, "GET", `/api/v2/search${q({ q: "wombat burrow", type: "statuses" })}`)) as any).statuses.map((x: { id: string }) => x.id);
  assert.deepEqual(await find(other), [g1, l1]);
  await s.api(mod, "POST", `/api/v1/admin/accounts/${loud.id}/action`, { type: "silence" });
  await s.api(mod, "POST", `/api/v1/admin/accounts/${gone.id}/action`, { type: "suspend" });
  assert.deepEqual(await find(other), []);
  assert.deepEqual(await find(fan), [l1]);
});
