// Hashtags and federation (issue 12 part 4): a remote post carrying a followed tag reaches the
// tag's followers through a signed inbox delivery; a Mastodon actor's featured tags are read
// from its `featuredTags` collection and kept by its Add / Remove of a Hashtag.
import assert from "node:assert/strict";
import { test } from "node:test";
import type { FakeActor } from "../helpers/fake-remote.ts";
import type { TestUser } from "../helpers/server.ts";
import { accountIdOf, aliceFollows, AS_CONTEXT, deliverAndRun, fixture, PUBLIC, relationship, startWorld, type World } from "./inbox-helpers.ts";

let seq = 0;
/** A Mastodon Create(Note) by `actor` tagged #herons (public unless `to` says otherwise). */
function heronNote(w: World, actor: FakeActor, text: string, to: string[] = [PUBLIC]): Record<string, unknown> {
  const create = fixture(w, "mastodon/create-note");
  const id = `${actor.id}/statuses/heron-${++seq}`;
  // Published a moment ago (whole seconds, as Mastodon writes them), in posting order.
  const published = new Date(Math.floor(w.s.app.now() / 1000) * 1000 - 100_000 + seq * 1000).toISOString();
  return {
    ...create,
    id: `${id}/activity`,
    actor: actor.id,
    published,
    to,
    cc: [actor.followers],
    object: {
      ...create.object,
      id,
      url: `${w.remote.origin}/@${actor.username}/heron-${seq}`,
      attributedTo: actor.id,
      published,
      summary: null,
      sensitive: false,
      to,
      cc: [actor.followers],
      content: `<p>${text} <a href="${w.remote.origin}/tags/herons" class="mention hashtag" rel="tag">#<span>Herons</span></a></p>`,
      tag: [{ type: "Hashtag", href: `${w.remote.origin}/tags/herons`, name: "#Herons" }],
    },
  };
}

async function home(w: World, who: TestUser): Promise<string[]> {
  const list = await w.s.api(who, "GET", "/api/v1/timelines/home");
  return list.map((s: { content: string }) => s.content.replace(/<[^>]+>/g, ""));
}

test("a remote post with a followed tag lands in the tag followers' homes; muted authors' never", async (t) => {
  const w = await startWorld(t);
  const bob = w.remote.actor("bob");
  const [dave, erin] = await Promise.all(["dave", "erin"].map((u) => w.s.user(u)));
  // alice follows bob, so bob's posts are delivered here at all (Mastodon drops posts no local
  // account relates to); dave and erin only follow the tag.
  const followId = await aliceFollows(w, bob);
  await deliverAndRun(w, bob, fixture(w, "mastodon/accept-follow", { FOLLOW_ID: followId }));
  assert.equal((await relationship(w, bob)).following, true);
  for (const u of [w.alice, dave, erin]) await w.s.api(u, "POST", "/api/v1/tags/herons/follow");
  const bobId = await accountIdOf(w, bob);
  await w.s.api(erin, "POST", `/api/v1/accounts/${bobId}/mute`);

  await deliverAndRun(w, bob, heronNote(w, bob, "a grey heron"));
  await deliverAndRun(w, bob, heronNote(w, bob, "followers only", [bob.followers]));
  assert.deepEqual(await home(w, dave), ["a grey heron #Herons"]);
  assert.deepEqual(await home(w, w.alice), ["followers only #Herons", "a grey heron #Herons"], "once, though alice follows bob too");
  assert.deepEqual(await home(w, erin), []);
  const [tag] = (await w.s.api(dave, "GET", "/api/v2/search?q=herons&type=hashtags")).hashtags;
  const uses = tag.history.reduce((n: number, h: { uses: string }) => n + Number(h.uses), 0);
  assert.equal(uses, 1, "the public remote post counts in the tag's history, the followers-only one not");
  assert.equal(tag.following, true);

  // Unfollowing the tag takes bob's post out of dave's home; later ones do not arrive.
  await w.s.api(dave, "POST", "/api/v1/tags/herons/unfollow");
  assert.deepEqual(await home(w, dave), []);
  await deliverAndRun(w, bob, heronNote(w, bob, "a great egret"));
  assert.deepEqual(await home(w, dave), []);
  assert.equal((await home(w, w.alice))[0], "a great egret #Herons");
});

test("a Mastodon actor's featuredTags collection is read when the actor is fetched; Add / Remove of a Hashtag keep it", async (t) => {
  const w = await startWorld(t);
  const bob = w.remote.actor("bob");
  bob.doc.featured = `${bob.id}/collections/featured`;
  bob.doc.featuredTags = `${bob.id}/collections/tags`;
  w.remote.serve("/users/bob/collections/tags", {
    "@context": [AS_CONTEXT, { Hashtag: "as:Hashtag" }],
    id: `${bob.id}/collections/tags`,
    type: "Collection",
    totalItems: 4,
    items: [
      { type: "Hashtag", href: `${w.remote.origin}/@bob/tagged/birds`, name: "#Birds" },
      { type: "Hashtag", href: `${w.remote.origin}/@bob/tagged/123`, name: "#123" },
      { type: "Emoji", name: ":cat:" },
      { type: "Hashtag", href: `${w.remote.origin}/@bob/tagged/cats`, name: "#cats" },
    ],
  });
  const bobId = await accountIdOf(w, bob);
  await w.s.drainJobs();
  const featured = async () => (await w.s.api(null, "GET", `/api/v1/accounts/${bobId}/featured_tags`)).map((f: any) => [f.name, f.url]);
  assert.deepEqual(await featured(), [
    ["Birds", `${w.remote.origin}/@bob/tagged/birds`],
    ["cats", `${w.remote.origin}/@bob/tagged/cats`],
  ]);

  // Mastodon's Add targets the featured collection; the object's type says it is a hashtag.
  await deliverAndRun(w, bob, { ...fixture(w, "mastodon/add-featured-hashtag"), object: { type: "Hashtag", href: `${w.remote.origin}/@bob/tagged/owls`, name: "#Owls" } });
  assert.deepEqual((await featured()).map((f: string[]) => f[0]), ["Birds", "cats", "Owls"]);
  await deliverAndRun(w, bob, { ...fixture(w, "mastodon/remove-featured"), object: { type: "Hashtag", href: `${w.remote.origin}/@bob/tagged/birds`, name: "#birds" } });
  assert.deepEqual((await featured()).map((f: string[]) => f[0]), ["cats", "Owls"]);
  // An invalid name or another target changes nothing.
  await deliverAndRun(w, bob, { ...fixture(w, "mastodon/add-featured-hashtag"), object: { type: "Hashtag", name: "#12 34" } });
  await deliverAndRun(w, bob, { ...fixture(w, "mastodon/add-featured-hashtag"), target: `${bob.id}/collections/other` });
  assert.deepEqual((await featured()).map((f: string[]) => f[0]), ["cats", "Owls"]);

  // A refetch of the actor (its Update) reads the collection again: it is the truth.
  const update = fixture(w, "mastodon/update-person", { PEM: JSON.stringify(bob.publicKeyPem).slice(1, -1) });
  await deliverAndRun(w, bob, { ...update, object: { ...update.object, featured: bob.doc.featured, featuredTags: bob.doc.featuredTags } });
  assert.deepEqual((await featured()).map((f: string[]) => f[0]).sort(), ["Birds", "cats"]);
});
