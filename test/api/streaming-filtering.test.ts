// A stream shows what the matching timeline would show the same viewer (issue 11 part 4):
// blocks either way, mutes, show-reblogs off and exclusive lists keep posts out of public,
// hashtag, user and list streams alike, and the public stream agrees with GET
// /api/v1/timelines/public for the same viewer.
import { test } from "node:test";
import assert from "node:assert/strict";
import { startTestServer } from "../helpers/server.ts";
import { entity, type StreamEvent, TestSocket } from "../helpers/streaming.ts";
import { post } from "../helpers/posting.ts";

test("blocked, blocking and muted authors, boosts with reblogs off and exclusive-list members stay out as the timelines say", async (t) => {
  const s = await startTestServer();
  t.after(() => s.close());
  const [alice, bob, carol, dave, erin, frank, gina, zed] = await Promise.all(
    ["alice", "bob", "carol", "dave", "erin", "frank", "gina", "zed"].map((n) => s.user(n)),
  );
  for (const u of [bob, carol, erin, frank, gina]) await s.api(alice, "POST", `/api/v1/accounts/${u.id}/follow`, u === erin ? { reblogs: false } : {});
  const list = await s.api(alice, "POST", "/api/v1/lists", { title: "frank only", exclusive: true });
  await s.api(alice, "POST", `/api/v1/lists/${list.id}/accounts`, { account_ids: [frank.id] });
  await s.api(alice, "POST", `/api/v1/accounts/${bob.id}/block`);
  await s.api(alice, "POST", `/api/v1/accounts/${carol.id}/mute`);
  await s.api(dave, "POST", `/api/v1/accounts/${alice.id}/block`);
  await s.drainJobs();

  const pub = await TestSocket.open(s, alice.token);
  pub.subscribe("public");
  const tag = await TestSocket.open(s, alice.token);
  tag.subscribe("hashtag", { tag: "birds" });
  const home = await TestSocket.open(s, alice.token, { path: "/api/v1/streaming?stream=user" });
  const lst = await TestSocket.open(s, alice.token);
  lst.subscribe("list", { list: list.id });
  const other = await TestSocket.open(s, zed.token);
  other.subscribe("public");

  const hidden = [await post(s, bob, { status: "b #birds" }), await post(s, carol, { status: "c #birds" }), await post(s, dave, { status: "d #birds" })];
  const fromGina = await post(s, gina, { status: "g1" });
  await s.drainJobs();
  await s.api(erin, "POST", `/api/v1/statuses/${fromGina.id}/reblog`); // erin's boosts are off for alice
  const fromFrank = await post(s, frank, { status: "f #birds" });
  await s.drainJobs();
  const sentinel = await post(s, gina, { status: "g2 #birds" });
  await s.drainJobs();

  const until = async (socket: TestSocket, id: string): Promise<string[]> => {
    const seen: string[] = [];
    for (;;) {
      const e: StreamEvent = await socket.nextEvent();
      assert.equal(e.event, "update");
      seen.push(entity(e).id);
      if (entity(e).id === id) return seen;
    }
  };
  // zed hides nothing: the hidden posts were published.
  const zedSaw = await until(other, sentinel.id);
  for (const h of hidden) assert.ok(zedSaw.includes(h.id));

  const publicIds = await until(pub, sentinel.id);
  assert.deepEqual(publicIds, [fromGina.id, fromFrank.id, sentinel.id]);
  // The same viewer's public timeline shows the same posts (newest first).
  const rest = (await s.api(alice, "GET", "/api/v1/timelines/public")).map((x: { id: string }) => x.id);
  assert.deepEqual(rest, [...publicIds].reverse());
  assert.deepEqual(await until(tag, sentinel.id), [fromFrank.id, sentinel.id]);
  // Home: gina's posts; not the boost (reblogs off), not frank (his exclusive list has him).
  assert.deepEqual(await until(home, sentinel.id), [fromGina.id, sentinel.id]);
  const homeRest = (await s.api(alice, "GET", "/api/v1/timelines/home")).map((x: { id: string }) => x.id);
  assert.deepEqual(homeRest, [sentinel.id, fromGina.id]);
  assert.deepEqual(await until(lst, fromFrank.id), [fromFrank.id]);
  for (const x of [pub, tag, home, lst, other]) x.close();
});

test("a boost of an author the viewer blocked since does not reach the user stream", async (t) => {
  const s = await startTestServer();
  t.after(() => s.close());
  const [alice, bob, gina] = await Promise.all(["alice", "bob", "gina"].map((n) => s.user(n)));
  await s.api(alice, "POST", `/api/v1/accounts/${gina.id}/follow`);
  await s.api(alice, "POST", `/api/v1/accounts/${bob.id}/follow`);
  await s.drainJobs();
  const home = await TestSocket.open(s, alice.token, { path: "/api/v1/streaming?stream=user" });
  // gina boosts bob's post, and alice blocks bob before the boost's fan-out runs.
  const p = await post(s, bob, { status: "from bob" });
  await s.drainJobs();
  assert.equal(entity(await home.nextEvent()).id, p.id);
  const boost = await s.api(gina, "POST", `/api/v1/statuses/${p.id}/reblog`);
  await s.api(alice, "POST", `/api/v1/accounts/${bob.id}/block`);
  await s.drainJobs();
  const sentinel = await post(s, gina, { status: "from gina" });
  await s.drainJobs();
  const next = await home.nextEvent();
  assert.equal(entity(next).id, sentinel.id, `the boost ${boost.id} must not come first`);
  home.close();
});

test("keyword filters: hide drops the event, warn carries `filtered`, and a change is announced and applied at once", async (t) => {
  const s = await startTestServer();
  t.after(() => s.close());
  const [alice, gina] = await Promise.all(["alice", "gina"].map((n) => s.user(n)));
  await s.api(alice, "POST", `/api/v1/accounts/${gina.id}/follow`);
  await s.drainJobs();
  await s.api(alice, "POST", "/api/v2/filters", {
    title: "no spoilers",
    context: ["home", "public"],
    filter_action: "hide",
    keywords_attributes: [{ keyword: "spoiler" }],
  });
  const warn = await s.api(alice, "POST", "/api/v2/filters", {
    title: "cats",
    context: ["public"],
    filter_action: "warn",
    keywords_attributes: [{ keyword: "caturday" }],
  });
  const home = await TestSocket.open(s, alice.token, { path: "/api/v1/streaming?stream=user" });
  const pub = await TestSocket.open(s, alice.token);
  pub.subscribe("public");

  const spoiler = await post(s, gina, { status: "a spoiler about the finale" });
  const cats = await post(s, gina, { status: "happy #caturday" });
  await s.drainJobs();
  const homeIds: string[] = [];
  for (;;) {
    const e = await home.nextEvent();
    assert.equal(e.event, "update");
    homeIds.push(entity(e).id);
    // As in REST, `filtered` lists every match with its filter's context: the app decides.
    if (entity(e).id === cats.id) {
      assert.deepEqual(entity(e).filtered.map((f: { filter: { context: string[] } }) => f.filter.context), [["public"]]);
      break;
    }
  }
  assert.deepEqual(homeIds, [cats.id]);
  const e = await pub.nextEvent();
  assert.equal(entity(e).id, cats.id, "the hidden post never reached the public stream");
  assert.equal(entity(e).filtered.length, 1);
  assert.equal(entity(e).filtered[0].filter.id, warn.id);
  assert.deepEqual(entity(e).filtered[0].keyword_matches, ["caturday"]);

  // Deleting the hide filter is announced on the user stream, and applies to the next post.
  const hide = (await s.api(alice, "GET", "/api/v2/filters")).find((f: { title: string }) => f.title === "no spoilers");
  await s.api(alice, "DELETE", `/api/v2/filters/${hide.id}`);
  const changed = await home.nextEvent();
  assert.equal(changed.event, "filters_changed");
  assert.equal(changed.payload, undefined);
  const again = await post(s, gina, { status: "another spoiler" });
  await s.drainJobs();
  assert.equal(entity(await home.nextEvent()).id, again.id);
  assert.equal(entity(await pub.nextEvent()).id, again.id);
  home.close();
  pub.close();
});
