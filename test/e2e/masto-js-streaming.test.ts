// masto.js's streaming client (what Elk and Phanpy use) against roost: it finds the streaming
// URL in the instance document, opens the WebSocket with the token as sub-protocol, subscribes
// several streams on one socket and parses every event it gets.
import { test } from "node:test";
import assert from "node:assert/strict";
import { createRestAPIClient, createStreamingAPIClient, type mastodon } from "masto";
import WebSocket from "ws";
import { eventually } from "../helpers/fake-remote.ts";
import { startTestServer } from "../helpers/server.ts";

test("masto.js streams a home timeline, notifications and a hashtag from one socket", async (t) => {
  const s = await startTestServer();
  t.after(() => s.close());
  const aliceUser = await s.user("alice");
  const bobUser = await s.user("bob");
  const alice = createRestAPIClient({ url: s.url, accessToken: aliceUser.token });
  const bob = createRestAPIClient({ url: s.url, accessToken: bobUser.token });
  await alice.v1.accounts.$select(bobUser.id).follow();
  await s.drainJobs();

  const instance = await alice.v2.instance.fetch();
  const streamingApiUrl = instance.configuration.urls.streaming;
  assert.equal(streamingApiUrl, `ws://${new URL(s.url).host}`);
  const streaming = createStreamingAPIClient({ streamingApiUrl, accessToken: aliceUser.token, implementation: WebSocket, retry: false });

  const home = streaming.user.subscribe()[Symbol.asyncIterator]();
  const birds = streaming.hashtag.subscribe({ tag: "birds" })[Symbol.asyncIterator]();
  const nextHome = home.next();
  const nextBird = birds.next();
  // masto.js sends its subscribe frames once the socket is open: wait until the server has them.
  await eventually(() => s.app.events.wants(`timeline:${aliceUser.id}`) && s.app.events.wants("timeline:hashtag:birds"), 10_000, "the subscriptions");

  const posted = await bob.v1.statuses.create({ status: "a wren #birds" });
  await s.drainJobs();
  const update = (await nextHome).value as mastodon.streaming.UpdateEvent;
  assert.equal(update.event, "update");
  assert.deepEqual(update.stream, ["user"]);
  assert.equal(update.payload.id, posted.id);
  assert.equal(update.payload.account.id, bobUser.id);
  assert.equal(update.payload.content, "<p>a wren <a href=\"" + s.app.baseUrl + "/tags/birds\" class=\"mention hashtag\" rel=\"tag\">#<span>birds</span></a></p>");
  const tagged = (await nextBird).value as mastodon.streaming.UpdateEvent;
  assert.deepEqual(tagged.stream, ["hashtag", "birds"]);
  assert.equal(tagged.payload.id, posted.id);
  assert.deepEqual(tagged.payload.tags.map((x) => x.name), ["birds"]);

  const mine = await alice.v1.statuses.create({ status: "look at this" });
  await s.drainJobs();
  assert.equal(((await home.next()).value as mastodon.streaming.UpdateEvent).payload.id, mine.id);
  await bob.v1.statuses.$select(mine.id).favourite();
  await s.drainJobs();
  const note = (await home.next()).value as mastodon.streaming.NotificationEvent;
  assert.equal(note.event, "notification");
  assert.equal(note.payload.type, "favourite");
  assert.equal(note.payload.account.id, bobUser.id);
  assert.equal(note.payload.status?.id, mine.id);

  await bob.v1.statuses.$select(posted.id).update({ status: "a wren, singing #birds" });
  await s.drainJobs();
  const edit = (await home.next()).value as mastodon.streaming.StatusUpdateEvent;
  assert.equal(edit.event, "status.update");
  assert.match(edit.payload.content, /singing/);
  assert.equal(((await birds.next()).value as mastodon.streaming.StatusUpdateEvent).event, "status.update");

  await bob.v1.statuses.$select(posted.id).remove();
  await s.drainJobs();
  assert.deepEqual((await home.next()).value, { stream: ["user"], event: "delete", payload: posted.id });
  assert.deepEqual((await birds.next()).value, { stream: ["hashtag", "birds"], event: "delete", payload: posted.id });
  // Before the server goes: masto.js would otherwise try to reconnect.
  streaming.close();
});
