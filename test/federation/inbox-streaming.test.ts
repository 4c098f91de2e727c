// Remote activity reaches the live streams through the same services as local posts: a signed
// Create, Update and Delete from another server produce update, status.update, notification
// and delete events; a user who blocked that server's domain gets none of them (the seed:
// account domain blocks filter the streaming API).
import assert from "node:assert/strict";
import { test } from "node:test";
import { post } from "../helpers/posting.ts";
import { entity, openEventStream, TestSocket } from "../helpers/streaming.ts";
import { activityId, AS_CONTEXT, deliverAndRun, localUri, PUBLIC, startWorld } from "./inbox-helpers.ts";

test("a signed Create, Update and Delete reach public, public:remote, hashtag and user streams; a domain block keeps them out", async (t) => {
  const w = await startWorld(t);
  const rita = w.remote.actor("rita");
  const bob = await w.s.user("bob");
  await w.s.api(bob, "POST", "/api/v1/domain_blocks", { domain: w.remote.domain });
  const alicePublic = await TestSocket.open(w.s, w.alice.token);
  alicePublic.subscribe("public");
  alicePublic.subscribe("public:remote");
  alicePublic.subscribe("hashtag", { tag: "herons" });
  alicePublic.subscribe("public:local");
  const aliceUser = await TestSocket.open(w.s, w.alice.token, { path: "/api/v1/streaming?stream=user" });
  const bobSocket = await TestSocket.open(w.s, bob.token);
  bobSocket.subscribe("public");
  bobSocket.subscribe("hashtag", { tag: "herons" });
  const bobSse = await openEventStream(w.s, bob.token, "/api/v1/streaming/public/remote");

  const noteId = `${rita.id}/statuses/${Date.now()}`;
  const note = {
    id: noteId,
    type: "Note",
    attributedTo: rita.id,
    content: `<p>A heron at dawn <a href="https://LOCAL/users/alice">@alice</a> #herons</p>`.replace("https://LOCAL", w.s.url),
    published: new Date().toISOString(),
    to: [PUBLIC],
    cc: [rita.followers, localUri(w, w.alice)],
    tag: [
      { type: "Mention", href: localUri(w, w.alice), name: `@alice@${w.s.app.config.domain}` },
      { type: "Hashtag", href: `${w.remote.origin}/tags/herons`, name: "#herons" },
    ],
  };
  await deliverAndRun(w, rita, { "@context": AS_CONTEXT, id: activityId(rita), type: "Create", actor: rita.id, to: note.to, cc: note.cc, object: note });
  const got = [await alicePublic.nextEvent(), await alicePublic.nextEvent(), await alicePublic.nextEvent()];
  assert.deepEqual(got.map((e) => e.stream![0]).sort(), ["hashtag", "public", "public:remote"]);
  const status = entity(got[0]);
  assert.equal(status.uri, noteId);
  assert.equal(status.account.acct, `rita@${w.remote.domain}`);
  assert.deepEqual(status.tags.map((x: { name: string }) => x.name), ["herons"]);
  // The mention: a notification on alice's user stream (she does not follow rita: no home update).
  const n = await aliceUser.nextEvent();
  assert.equal(n.event, "notification");
  assert.equal(entity(n).type, "mention");
  assert.equal(entity(n).status.id, status.id);

  const updated = { ...note, content: note.content.replace("at dawn", "at dusk"), updated: new Date(Date.now() + 1000).toISOString() };
  await deliverAndRun(w, rita, { "@context": AS_CONTEXT, id: `${noteId}#updates/1`, type: "Update", actor: rita.id, to: note.to, cc: note.cc, object: updated });
  const edits = [await alicePublic.nextEvent(), await alicePublic.nextEvent(), await alicePublic.nextEvent()];
  for (const e of edits) {
    assert.equal(e.event, "status.update");
    assert.match(entity(e).content, /at dusk/);
  }

  await deliverAndRun(w, rita, { "@context": AS_CONTEXT, id: `${noteId}#delete`, type: "Delete", actor: rita.id, to: [PUBLIC], object: { id: noteId, type: "Tombstone" } });
  const deletes = [await alicePublic.nextEvent(), await alicePublic.nextEvent(), await alicePublic.nextEvent()];
  for (const e of deletes) assert.deepEqual({ event: e.event, payload: e.payload }, { event: "delete", payload: status.id });

  // bob blocked the domain: no update or status.update reached his streams. Deletes carry
  // only an id and pass through unfiltered, as in Mastodon's streaming server (§7).
  for (const e of [await bobSocket.nextEvent(), await bobSocket.nextEvent()]) assert.deepEqual({ event: e.event, payload: e.payload }, { event: "delete", payload: status.id });
  assert.deepEqual(await bobSse.next(), { event: "delete", payload: status.id });
  const local = await post(w.s, w.alice, { status: "local #herons" });
  await w.s.drainJobs();
  const next = [await bobSocket.nextEvent(), await bobSocket.nextEvent()];
  assert.deepEqual(next.map((e) => e.stream![0]).sort(), ["hashtag", "public"]);
  for (const e of next) assert.equal(entity(e).id, local.id);
  assert.equal(bobSse.events.pending.length, 0);
  bobSse.close();
  for (const s of [alicePublic, aliceUser, bobSocket]) s.close();
});
