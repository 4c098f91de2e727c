// How the hub delivers (streaming/DESIGN.md "Delivery cost"): viewers who see a status alike
// share one rendering, yet each viewer's own fields (flags, filters, authorship) and rules
// (mutes) still hold; a burst larger than one slice yields to the event loop and every
// stream still gets its events in order, WebSocket and SSE alike.
import { test } from "node:test";
import assert from "node:assert/strict";
import { publishAnnouncement } from "../../src/services/stream-events.ts";
import { startTestServer } from "../helpers/server.ts";
import { entity, openEventStream, type StreamEvent, TestSocket } from "../helpers/streaming.ts";
import { post } from "../helpers/posting.ts";

test("followers with different flags, filters and mutes get their own payloads; alike ones the same text", async (t) => {
  const s = await startTestServer();
  t.after(() => s.close());
  const [alice, bob, carol, dave, erin] = await Promise.all(["alice", "bob", "carol", "dave", "erin"].map((n) => s.user(n)));
  for (const u of [bob, carol, dave, erin]) await s.api(u, "POST", `/api/v1/accounts/${alice.id}/follow`);
  await s.api(carol, "POST", `/api/v1/accounts/${dave.id}/follow`);
  await s.api(erin, "POST", `/api/v1/accounts/${dave.id}/follow`);
  await s.api(erin, "POST", `/api/v1/accounts/${alice.id}/mute`);
  const warn = await s.api(bob, "POST", "/api/v2/filters", {
    title: "birds",
    context: ["home"],
    filter_action: "warn",
    keywords_attributes: [{ keyword: "finches" }],
  });
  await s.drainJobs();
  const open = (u: { token: string }) => TestSocket.open(s, u.token, { path: "/api/v1/streaming?stream=user" });
  const [ha, hb, hc, hd, he] = await Promise.all([alice, bob, carol, dave, erin].map(open));

  const first = await post(s, alice, { status: "two finches at the feeder" });
  await s.drainJobs();
  const [ea, eb, ec, ed] = await Promise.all([ha, hb, hc, hd].map((h) => h.nextEvent()));
  for (const e of [ea, eb, ec, ed]) {
    assert.equal(e.event, "update");
    assert.equal(entity(e).id, first.id);
  }
  // carol and dave see it alike: the very same payload.
  assert.equal(ec.payload, ed.payload);
  assert.deepEqual(entity(ec).filtered, []);
  assert.equal(entity(ec).application, undefined);
  // bob's warn filter matches; alice, the author, sees her posting app and `pinned`.
  assert.deepEqual(
    entity(eb).filtered.map((f: { filter: { id: string }; keyword_matches: string[] }) => [f.filter.id, f.keyword_matches]),
    [[warn.id, ["finches"]]],
  );
  assert.equal(entity(ea).pinned, false);
  assert.ok(entity(ea).application, "the author sees the posting app");
  assert.deepEqual({ ...entity(eb), filtered: [] }, entity(ec), "otherwise bob sees what carol sees");

  // Flags: bob favourites and bookmarks, then an edit reaches everyone with their own flags.
  await s.api(bob, "POST", `/api/v1/statuses/${first.id}/favourite`);
  await s.api(carol, "POST", `/api/v1/statuses/${first.id}/bookmark`);
  await s.api(alice, "PUT", `/api/v1/statuses/${first.id}`, { status: "three finches at the feeder" });
  await s.drainJobs();
  const edits = await Promise.all([hb, hc, hd].map((h) => h.nextEvent()));
  for (const e of edits) assert.equal(e.event, "status.update");
  const [ub, uc, ud] = edits.map(entity);
  assert.deepEqual([ub.favourited, ub.bookmarked, ub.filtered.length], [true, false, 1]);
  assert.deepEqual([uc.favourited, uc.bookmarked, uc.filtered.length], [false, true, 0]);
  assert.deepEqual([ud.favourited, ud.bookmarked, ud.filtered.length], [false, false, 0]);
  assert.equal(ud.content, "<p>three finches at the feeder</p>");

  // erin muted alice: nothing of hers arrived; the first event erin gets is dave's later post.
  const sentinel = await post(s, dave, { status: "sentinel" });
  await s.drainJobs();
  const e = await he.nextEvent();
  assert.equal(entity(e).id, sentinel.id, `erin got ${e.event} ${e.payload?.slice(0, 80)} instead`);
  for (const h of [hc, hd]) assert.equal(entity(await h.nextEvent()).id, sentinel.id); // carol follows dave

  // Two authors' posts fanned out in one turn: each viewer gets each post as they see it.
  const p1 = await post(s, alice, { status: "finches again" });
  const p2 = await post(s, dave, { status: "no birds here" });
  await s.drainJobs();
  const twoOf = async (h: TestSocket) => {
    const got = [entity(await h.nextEvent()), entity(await h.nextEvent())];
    return Object.fromEntries(got.map((x) => [x.id, x]));
  };
  const [forCarol, forDave] = await Promise.all([twoOf(hc), twoOf(hd)]);
  const forBob = entity(await hb.nextEvent());
  const forErin = entity(await he.nextEvent());
  assert.deepEqual([forBob.id, forBob.filtered.length], [p1.id, 1]);
  assert.deepEqual([forCarol[p1.id].filtered.length, forCarol[p2.id].filtered.length], [0, 0]);
  assert.deepEqual([forDave[p2.id].pinned, forCarol[p2.id].pinned], [false, undefined], "only the author sees `pinned`");
  assert.equal(forErin.id, p2.id, "erin still gets nothing of alice's");
  for (const h of [ha, hb, hc, hd, he]) h.close();
});

test("a burst larger than a slice is written over several turns of the event loop, in order on every stream", async (t) => {
  const s = await startTestServer();
  t.after(() => s.close());
  const [alice, bob] = await Promise.all(["alice", "bob"].map((n) => s.user(n)));
  const sockets = await Promise.all([alice, bob].map((u) => TestSocket.open(s, u.token, { path: "/api/v1/streaming?stream=user" })));
  const sse = await openEventStream(s, alice.token, "/api/v1/streaming/user");
  const N = 400; // 3 streams: 1,200 frames, several slices
  for (let i = 0; i < N; i++) publishAnnouncement(s.app, JSON.stringify({ id: String(i), content: `<p>${i}</p>` }));
  // The bus delivers on a later turn; after it, part of the burst is still waiting for its slice.
  await new Promise((r) => setImmediate(r));
  const waiting = s.app.streams!.queuedWrites;
  assert.ok(waiting > 0 && waiting < 3 * N, `${waiting} frames waiting after the first slice`);

  const idsOf = async (next: () => Promise<StreamEvent>) => {
    const ids: string[] = [];
    for (let i = 0; i < N; i++) {
      const e = await next();
      assert.equal(e.event, "announcement");
      ids.push(entity(e).id);
    }
    return ids;
  };
  const expected = Array.from({ length: N }, (_, i) => String(i));
  for (const socket of sockets) assert.deepEqual(await idsOf(() => socket.nextEvent()), expected);
  assert.deepEqual(await idsOf(() => sse.events.next("an SSE event")), expected);
  assert.equal(s.app.streams!.queuedWrites, 0);
  for (const socket of sockets) socket.close();
});
