// The `:media` public streams (streaming.md §3): a remote post with an attachment reaches
// public:media and public:remote:media (WebSocket, and SSE with only_media), one without does
// not; local streams get neither.
import assert from "node:assert/strict";
import { test } from "node:test";
import { entity, openEventStream, TestSocket } from "../helpers/streaming.ts";
import { followRemote, noteDoc, startWorld, stored } from "./remote-status-helpers.ts";

test("remote posts with media reach the :media streams; posts without do not", async (t) => {
  const w = await startWorld(t);
  const { s, remote, rita } = w;
  const alice = await s.user("alice");
  followRemote(w, alice); // pushed posts are accepted from accounts someone here follows
  const socket = await TestSocket.open(s, alice.token);
  socket.subscribe("public:media");
  socket.subscribe("public:remote:media");
  socket.subscribe("public:local:media");
  const sse = await openEventStream(s, alice.token, "/api/v1/streaming/public/remote?only_media=true");
  const plainSse = await openEventStream(s, alice.token, "/api/v1/streaming/public/remote?only_media=false");

  const text = await stored(w, noteDoc(rita, { content: "<p>just words</p>" }));
  const picture = await stored(w, noteDoc(rita, { content: "<p>a picture</p>", attachment: [{ type: "Document", mediaType: "image/png", url: `${remote.origin}/heron.png` }] }));
  await s.drainJobs();
  const got = [await socket.nextEvent(), await socket.nextEvent()];
  assert.deepEqual(got.map((e) => e.stream![0]).sort(), ["public:media", "public:remote:media"]);
  for (const e of got) {
    assert.equal(entity(e).id, picture.id);
    assert.equal(entity(e).media_attachments.length, 1);
  }
  assert.equal(entity(await sse.next()).id, picture.id);
  assert.deepEqual([entity(await plainSse.next()).id, entity(await plainSse.next()).id], [text.id, picture.id]);
  socket.close();
  sse.close();
  plainSse.close();
});
