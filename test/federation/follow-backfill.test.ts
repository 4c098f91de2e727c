// Issue 19 part 3: when a remote account accepts a local follow, its recent outbox posts are
// merged into the follower's home and lists by date, by the feed rules, with no notification,
// stream event or delivery (parts 4 and 5).
import { test } from "node:test";
import assert from "node:assert/strict";
import { idTime } from "../../src/lib/ids.ts";
import { type FakeActor } from "../helpers/fake-remote.ts";
import { accountIdOf, activityId, aliceFollows, deliverAndRun, localUri, startWorld, type World } from "./inbox-helpers.ts";
import { noteDoc, type Doc } from "./remote-status-helpers.ts";

const AS = "https://www.w3.org/ns/activitystreams";
const hoursAgo = (h: number) => new Date(Math.floor(Date.now() / 1000) * 1000 - h * 3600_000).toISOString();
const create = (note: Doc) => ({ id: `${note.id}/activity`, type: "Create", actor: note.attributedTo, published: note.published, to: note.to, cc: note.cc, object: note });

function outbox(w: World, actor: FakeActor, notes: Doc[]): void {
  w.remote.serve(`/users/${actor.username}/outbox`, { "@context": AS, id: `${actor.id}/outbox`, type: "OrderedCollection", totalItems: notes.length, first: `${actor.id}/outbox/1` });
  w.remote.serve(`/users/${actor.username}/outbox/1`, { "@context": AS, id: `${actor.id}/outbox/1`, type: "OrderedCollectionPage", orderedItems: notes.map(create) });
}

async function accept(w: World, actor: FakeActor, followId: string): Promise<void> {
  await deliverAndRun(w, actor, { "@context": AS, id: activityId(actor), type: "Accept", actor: actor.id, object: followId });
}

test("an accepted follow backfills home and lists in date order, by the feed rules, silently", async (t) => {
  const w = await startWorld(t);
  const { s, alice } = w;
  const rita = w.remote.actor("rita");
  const mallory = w.remote.actor("mallory");
  const malloryId = await accountIdOf(w, mallory);
  await s.api(alice, "POST", `/api/v1/accounts/${malloryId}/mute`);
  await s.api(alice, "POST", "/api/v2/filters", { title: "fruit", context: ["home"], filter_action: "hide", keywords_attributes: [{ keyword: "durian" }] });
  const mention = (who: string, name: string) => ({ tag: [{ type: "Mention", href: who, name }], cc: [who] });
  const notes = [
    noteDoc(rita, { published: hoursAgo(1), content: "<p>one</p>" }),
    // Mentions alice: still no notification.
    noteDoc(rita, { published: hoursAgo(2), content: "<p>@alice two</p>", ...mention(localUri(w, alice), "@alice") }),
    // Mentions someone alice mutes: not in her home (the fan-out's rule).
    noteDoc(rita, { published: hoursAgo(3), content: "<p>@mallory three</p>", ...mention(mallory.id, "@mallory") }),
    // Hidden by alice's filter when read.
    noteDoc(rita, { published: hoursAgo(4), content: "<p>durian four</p>" }),
    noteDoc(rita, { published: hoursAgo(5), content: "<p>five</p>" }),
  ];
  outbox(w, rita, notes);

  const followId = await aliceFollows(w, rita);
  const ritaId = await accountIdOf(w, rita);
  const list = await s.api(alice, "POST", "/api/v1/lists", { title: "friends" });
  await s.api(alice, "POST", `/api/v1/lists/${list.id}/accounts`, { account_ids: [ritaId] });
  const mine = await s.api(alice, "POST", "/api/v1/statuses", { status: "mine, newest" });
  await s.drainJobs();
  const events: string[] = [];
  t.after(s.app.events.observe((topic, m) => events.push(`${topic} ${m.event}`)));
  const deliveriesBefore = w.remote.received.length;

  await accept(w, rita, followId);
  assert.equal((await s.api(alice, "GET", `/api/v1/accounts/relationships?id[]=${ritaId}`))[0].following, true);
  const home = await s.api(alice, "GET", "/api/v1/timelines/home");
  assert.deepEqual(
    home.map((x: any) => x.uri ?? x.content),
    [mine.uri, notes[0].id, notes[1].id, notes[4].id],
    "by date under the newer post; the muted mention and the filtered post left out",
  );
  assert.equal(idTime(home[1].id), Date.parse(notes[0].published as string));
  const listed = await s.api(alice, "GET", `/api/v1/timelines/list/${list.id}`);
  // Lists read the home filters too (Mastodon's `home` context covers lists).
  assert.deepEqual(listed.map((x: any) => x.uri), [notes[0].id, notes[1].id, notes[4].id]);
  assert.deepEqual(await s.api(alice, "GET", "/api/v1/notifications"), []);
  assert.deepEqual(events.filter((e) => !e.startsWith("notifications")), [], "no stream event");
  assert.equal(w.remote.received.length, deliveriesBefore, "nothing delivered");
});

test("the switch and the post bound of follow backfill", async (t) => {
  const w = await startWorld(t);
  const { s, alice } = w;
  (s.app.config as { followBackfillMaxPosts: number }).followBackfillMaxPosts = 2;
  const rita = w.remote.actor("rita");
  const notes = [1, 2, 3, 4].map((h) => noteDoc(rita, { published: hoursAgo(h) }));
  outbox(w, rita, notes);
  await accept(w, rita, await aliceFollows(w, rita));
  const home = await s.api(alice, "GET", "/api/v1/timelines/home");
  assert.deepEqual(home.map((x: any) => x.uri), [notes[0].id, notes[1].id]);

  (s.app.config as { followBackfill: boolean }).followBackfill = false;
  const otto = w.remote.actor("otto");
  outbox(w, otto, [noteDoc(otto, { published: hoursAgo(1) })]);
  await accept(w, otto, await aliceFollows(w, otto));
  assert.equal(w.remote.requests.filter((r) => r.path.startsWith("/users/otto/outbox/")).length, 0, "no outbox page fetched");
  assert.equal((await s.api(alice, "GET", "/api/v1/timelines/home")).length, 2);
});
