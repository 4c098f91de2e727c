import { test } from "node:test";
import assert from "node:assert/strict";
import { startTestServer, type TestServer, type TestUser } from "../helpers/server.ts";
import { ids, post } from "../helpers/posting.ts";

// Lists: CRUD and limits, members (only followed accounts), list timelines per replies_policy,
// exclusive lists, GET /api/v1/accounts/:id/lists.

const HOME = "/api/v1/timelines/home";

async function follow(s: TestServer, who: TestUser, target: TestUser) {
  await s.api(who, "POST", `/api/v1/accounts/${target.id}/follow`);
}

test("lists CRUD, validation, ownership and the 50-list limit", async (t) => {
  const s = await startTestServer();
  t.after(() => s.close());
  const [alice, bob] = [await s.user("alice"), await s.user("bob")];

  const created = await s.api(alice, "POST", "/api/v1/lists", { title: "Friends" });
  assert.deepEqual(created, { id: created.id, title: "Friends", replies_policy: "list", exclusive: false });
  const form = new URLSearchParams({ title: "Work", replies_policy: "none", exclusive: "true" });
  const work = await s.api(alice, "POST", "/api/v1/lists", form);
  assert.deepEqual(work, { id: work.id, title: "Work", replies_policy: "none", exclusive: true });

  assert.deepEqual(await s.api(alice, "GET", "/api/v1/lists"), [created, work]);
  assert.deepEqual(await s.api(alice, "GET", `/api/v1/lists/${work.id}`), work);
  assert.equal((await s.req(alice, "GET", "/api/v1/lists")).headers.get("link"), null);

  const updated = await s.api(alice, "PUT", `/api/v1/lists/${created.id}`, { replies_policy: "followed" });
  assert.deepEqual(updated, { ...created, replies_policy: "followed" });

  const blank = await s.req(alice, "POST", "/api/v1/lists", { title: "  " });
  assert.equal(blank.status, 422);
  assert.equal(blank.body.error, "Validation failed: Title can't be blank");
  assert.equal((await s.req(alice, "POST", "/api/v1/lists", {})).status, 422);
  const long = await s.req(alice, "POST", "/api/v1/lists", { title: "x".repeat(257) });
  assert.equal(long.body.error, "Validation failed: Title is too long (maximum is 256 characters)");
  const policy = await s.req(alice, "POST", "/api/v1/lists", { title: "x", replies_policy: "everyone" });
  assert.equal(policy.status, 422);
  assert.equal(policy.body.error, "Validation failed: Replies policy is not included in the list");

  // Other users' lists do not exist for bob.
  for (const [method, path] of [
    ["GET", `/api/v1/lists/${work.id}`],
    ["PUT", `/api/v1/lists/${work.id}`],
    ["DELETE", `/api/v1/lists/${work.id}`],
    ["GET", `/api/v1/lists/${work.id}/accounts`],
    ["GET", `/api/v1/timelines/list/${work.id}`],
    ["GET", "/api/v1/lists/abc"],
  ]) {
    const r = await s.req(bob, method, path, method === "PUT" ? { title: "mine" } : undefined);
    assert.equal(r.status, 404, `${method} ${path}`);
    assert.equal(r.body.error, "Record not found");
  }

  assert.deepEqual(await s.api(alice, "DELETE", `/api/v1/lists/${work.id}`), {});
  assert.deepEqual(await s.api(alice, "GET", "/api/v1/lists"), [updated]);

  for (let i = 1; i < 50; i++) await s.api(bob, "POST", "/api/v1/lists", { title: `list ${i}` });
  await s.api(bob, "POST", "/api/v1/lists", { title: "the 50th" });
  const over = await s.req(bob, "POST", "/api/v1/lists", { title: "one too many" });
  assert.equal(over.status, 422);
  assert.equal(over.body.error, "Validation failed: You have reached the maximum number of lists");
  assert.equal((await s.api(bob, "GET", "/api/v1/lists")).length, 50);

  const readOnly = await s.user("reader", { scopes: ["read:lists"] });
  assert.equal((await s.req(readOnly, "POST", "/api/v1/lists", { title: "x" })).status, 403);
  assert.deepEqual(await s.api(readOnly, "GET", "/api/v1/lists"), []);
});

test("list members: only followed accounts, paging, removal, accounts/:id/lists", async (t) => {
  const s = await startTestServer();
  t.after(() => s.close());
  const [alice, bob, carol, dave] = [await s.user("alice"), await s.user("bob"), await s.user("carol"), await s.user("dave")];
  await follow(s, alice, bob);
  await follow(s, alice, carol);
  const list = await s.api(alice, "POST", "/api/v1/lists", { title: "Pals" });
  const other = await s.api(alice, "POST", "/api/v1/lists", { title: "Others" });
  const members = `/api/v1/lists/${list.id}/accounts`;

  const notFollowed = await s.req(alice, "POST", members, { account_ids: [dave.id] });
  assert.equal(notFollowed.status, 422);
  assert.equal(notFollowed.body.error, "Validation failed: Account must be an account you follow");
  assert.equal((await s.req(alice, "POST", members, { account_ids: ["99999999"] })).status, 404);

  assert.deepEqual(await s.api(alice, "POST", members, { account_ids: [bob.id] }), {});
  assert.deepEqual(await s.api(alice, "POST", members, new URLSearchParams([["account_ids[]", carol.id]])), {});
  const dup = await s.req(alice, "POST", members, { account_ids: [bob.id] });
  assert.equal(dup.status, 422);
  await s.api(alice, "POST", `/api/v1/lists/${other.id}/accounts`, { account_ids: [carol.id] });

  // Newest membership first; cursors are the hidden membership ids.
  const all = await s.api(alice, "GET", members);
  assert.deepEqual(all.map((a: { id: string }) => a.id), [carol.id, bob.id]);
  const page = await s.req(alice, "GET", `${members}?limit=1`);
  assert.deepEqual(page.body.map((a: { id: string }) => a.id), [carol.id]);
  const link = page.headers.get("link") ?? "";
  const next = /<([^>]+)>; rel="next"/.exec(link)?.[1];
  assert.match(link, /rel="prev"/);
  assert.match(link, /since_id=\d+>; rel="prev"/);
  assert.ok(next);
  const second = await s.api(alice, "GET", next!.slice(s.app.baseUrl.length));
  assert.deepEqual(second.map((a: { id: string }) => a.id), [bob.id]);
  const zero = await s.req(alice, "GET", `${members}?limit=0`);
  assert.deepEqual(zero.body.map((a: { id: string }) => a.id), [carol.id, bob.id]);
  assert.equal(zero.headers.get("link"), null);

  const listsOfCarol = await s.api(alice, "GET", `/api/v1/accounts/${carol.id}/lists`);
  assert.deepEqual(listsOfCarol.map((l: { title: string }) => l.title), ["Pals", "Others"]);
  assert.deepEqual(await s.api(alice, "GET", `/api/v1/accounts/${dave.id}/lists`), []);
  assert.deepEqual(await s.api(bob, "GET", `/api/v1/accounts/${carol.id}/lists`), []);
  assert.equal((await s.req(alice, "GET", "/api/v1/accounts/99999999/lists")).status, 404);

  const p = await post(s, carol, { status: "carol in the list" });
  await s.drainJobs();
  assert.deepEqual(await ids(s, alice, `/api/v1/timelines/list/${list.id}`), [p.id]);
  assert.deepEqual(await s.api(alice, "DELETE", members, { account_ids: [carol.id, "424242"] }), {});
  assert.deepEqual((await s.api(alice, "GET", members)).map((a: { id: string }) => a.id), [bob.id]);
  assert.deepEqual(await ids(s, alice, `/api/v1/timelines/list/${list.id}`), [], "leaving the list removes its posts from the list feed");
  assert.deepEqual(await ids(s, alice, `/api/v1/timelines/list/${other.id}`), [p.id]);
});

test("list timelines: replies_policy and exclusive lists", async (t) => {
  const s = await startTestServer();
  t.after(() => s.close());
  const [alice, bob, carol, dave, erin] = [
    await s.user("alice"),
    await s.user("bob"),
    await s.user("carol"),
    await s.user("dave"),
    await s.user("erin"),
  ];
  for (const u of [bob, carol, dave]) await follow(s, alice, u);
  const make = async (title: string, replies_policy: string, exclusive = false) => {
    const l = await s.api(alice, "POST", "/api/v1/lists", { title, replies_policy, exclusive });
    await s.api(alice, "POST", `/api/v1/lists/${l.id}/accounts`, { account_ids: [bob.id, carol.id] });
    return l;
  };
  const byList = await make("list", "list");
  const byFollowed = await make("followed", "followed");
  const byNone = await make("none", "none");

  const carolPost = await post(s, carol, { status: "carol" });
  const davePost = await post(s, dave, { status: "dave" });
  const erinPost = await post(s, erin, { status: "erin" });
  const alicePost = await post(s, alice, { status: "alice" });
  const toCarol = await post(s, bob, { status: "@carol member reply", in_reply_to_id: carolPost.id });
  const toDave = await post(s, bob, { status: "@dave followed reply", in_reply_to_id: davePost.id });
  const toErin = await post(s, bob, { status: "@erin stranger reply", in_reply_to_id: erinPost.id });
  const toAlice = await post(s, bob, { status: "@alice owner reply", in_reply_to_id: alicePost.id });
  const plain = await post(s, bob, { status: "bob plain" });
  await s.drainJobs();

  const timeline = (l: { id: string }) => ids(s, alice, `/api/v1/timelines/list/${l.id}`);
  assert.deepEqual(await timeline(byList), [plain.id, toAlice.id, toCarol.id, carolPost.id]);
  assert.deepEqual(await timeline(byFollowed), [plain.id, toAlice.id, toDave.id, toCarol.id, carolPost.id]);
  assert.deepEqual(await timeline(byNone), [plain.id, toAlice.id, carolPost.id]);

  // An exclusive list takes its members' posts out of home, for new posts.
  const homeBefore = await ids(s, alice, HOME);
  assert.ok(homeBefore.includes(plain.id));
  const excl = await s.api(alice, "POST", "/api/v1/lists", { title: "exclusive", exclusive: true });
  await s.api(alice, "POST", `/api/v1/lists/${excl.id}/accounts`, { account_ids: [carol.id] });
  const later = await post(s, carol, { status: "carol again" });
  const bobLater = await post(s, bob, { status: "bob again" });
  await s.drainJobs();
  const home = await ids(s, alice, HOME);
  assert.ok(!home.includes(later.id), "exclusive member's post is not in home");
  assert.ok(home.includes(bobLater.id));
  assert.deepEqual(await timeline(excl), [later.id, carolPost.id], "carol's earlier post was backfilled");
  assert.equal((await timeline(byList))[0], bobLater.id);
  assert.ok((await timeline(byList)).includes(later.id), "non-exclusive lists still get it");

  // Pagination on list timelines: Link with next and prev.
  const r = await s.req(alice, "GET", `/api/v1/timelines/list/${byList.id}?limit=1`);
  const base = `${s.app.baseUrl}/api/v1/timelines/list/${byList.id}`;
  assert.equal(r.headers.get("link"), `<${base}?limit=1&max_id=${bobLater.id}>; rel="next", <${base}?limit=1&min_id=${bobLater.id}>; rel="prev"`);

  // Muting a member hides it from list timelines too.
  await s.api(alice, "POST", `/api/v1/accounts/${carol.id}/mute`);
  assert.deepEqual(await timeline(excl), []);
});
