// Issue 19 part 2: a remote profile opened with few stored posts is filled from its outbox and
// featured collection in the background (Mastodon-Async-Refresh), against fake remote servers
// serving the shapes of Mastodon, GoToSocial, Misskey and Akkoma (real HTTP).
import { test } from "node:test";
import assert from "node:assert/strict";
import { idTime } from "../../src/lib/ids.ts";
import { type FakeActor, type FakeRemote, startFakeRemote } from "../helpers/fake-remote.ts";
import { startTestServer, type TestServer } from "../helpers/server.ts";
import type { Config } from "../../src/config/config.ts";
import { noteDoc, remoteAccountOf, type Doc } from "./remote-status-helpers.ts";

const HEADER = /^id="([A-Za-z0-9_-]+)", retry=3, result_count=(\d+)$/;
const AS = "https://www.w3.org/ns/activitystreams";

async function setup(t: { after: (fn: () => Promise<void>) => void }, config: Partial<Config> = {}) {
  const s: TestServer = await startTestServer({ config });
  t.after(() => s.close());
  const remote: FakeRemote = await startFakeRemote();
  t.after(() => remote.close());
  return { s, remote };
}

const published = (minutesAgo: number) => new Date(Math.floor(Date.now() / 60_000) * 60_000 - minutesAgo * 60_000).toISOString();
const create = (note: Doc) => ({ id: `${note.id}/activity`, type: "Create", actor: note.attributedTo, published: note.published, to: note.to, cc: note.cc, object: note });
const path = (url: string) => new URL(url).pathname;
const gets = (remote: FakeRemote, url: string) => remote.requests.filter((r) => r.method === "GET" && r.path === path(url)).length;

/** Serves `doc` at its own id's path. */
function put(remote: FakeRemote, doc: Doc): Doc {
  remote.serve(path(doc.id as string), doc);
  return doc;
}

/** Mastodon's outbox: the collection, `first` a `?page=true` URL, pages with Create activities and `next`. */
function mastodonOutbox(remote: FakeRemote, actor: FakeActor, pages: unknown[][]): void {
  const outbox = `${actor.id}/outbox`;
  remote.serve(path(outbox), { "@context": AS, id: outbox, type: "OrderedCollection", totalItems: 99, first: `${outbox}?page=true`, last: `${outbox}?min_id=0&page=true` });
  remote.dynamic = (p) => {
    const m = /^\/users\/[^/]+\/outbox\?(?:max_id=(\d+)&)?page=true$/.exec(p);
    if (!m || !p.startsWith(path(outbox))) return undefined;
    const n = Number(m[1] ?? 0);
    if (n >= pages.length) return 404;
    return {
      "@context": AS,
      id: `${outbox}?${m[1] ? `max_id=${m[1]}&` : ""}page=true`,
      type: "OrderedCollectionPage",
      partOf: outbox,
      orderedItems: pages[n],
      ...(n + 1 < pages.length ? { next: `${outbox}?max_id=${n + 1}&page=true` } : {}),
    };
  };
}

async function view(s: TestServer, who: Parameters<TestServer["req"]>[0], accountId: string, query = "") {
  return s.req(who, "GET", `/api/v1/accounts/${accountId}/statuses${query}`);
}

test("a Mastodon outbox fills a profile and its pins, in date order, signed, boosts skipped", async (t) => {
  const { s, remote } = await setup(t);
  const alice = await s.user("alice");
  const rita = remote.actor("rita", { extra: { featured: `${remote.origin}/users/rita/collections/featured` } });
  const account = await remoteAccountOf(s, rita);
  const posts = [0, 1, 2, 3].map((i) => noteDoc(rita, { published: published(10 + i * 60), content: `<p>post ${i}</p>` }));
  // The third post is listed by id only and served on its own; the fourth on page 2.
  put(remote, posts[2]);
  const other = remote.actor("otto");
  const boosted = put(remote, noteDoc(other));
  mastodonOutbox(remote, rita, [
    [create(posts[0]), { id: `${rita.id}/statuses/b1/activity`, type: "Announce", actor: rita.id, object: boosted.id, to: [AS + "#Public"] }, create(posts[1]), posts[2].id],
    [create(posts[3])],
  ]);
  // Mastodon's featured collection embeds the pinned Notes, newest pin first.
  remote.serve("/users/rita/collections/featured", { "@context": AS, id: `${remote.origin}/users/rita/collections/featured`, type: "OrderedCollection", totalItems: 2, orderedItems: [posts[1], posts[3]] });
  await s.drainJobs(); // the account's own follow-up jobs (counts, featured tags)

  const first = await view(s, alice, account.id);
  assert.equal(first.status, 200);
  assert.deepEqual(first.body, []);
  const m = HEADER.exec(first.headers.get("mastodon-async-refresh") ?? "");
  assert.ok(m, `header: ${first.headers.get("mastodon-async-refresh")}`);
  const before = remote.requests.length;
  await s.drainJobs();
  assert.deepEqual(await s.api(alice, "GET", `/api/v1_alpha/async_refreshes/${m[1]}`), { async_refresh: { id: m[1], status: "finished", result_count: 4 } });

  const listed = await s.api(alice, "GET", `/api/v1/accounts/${account.id}/statuses`);
  assert.deepEqual(listed.map((x: any) => x.uri), posts.map((p) => p.id), "newest first, by publication time");
  for (const [i, p] of posts.entries()) assert.equal(idTime(listed[i].id), Date.parse(p.published as string));
  const pinned = await s.api(alice, "GET", `/api/v1/accounts/${account.id}/statuses?pinned=true`);
  assert.deepEqual(pinned.map((x: any) => x.uri), [posts[1].id, posts[3].id]);
  assert.equal(pinned[0].pinned, undefined, "only the owner sees its own pins flagged");
  assert.equal(gets(remote, boosted.id as string), 0, "a boost's original is not fetched");
  assert.ok(remote.requests.slice(before).every((r) => r.signed), "every fetch is signed (authorized fetch)");
  // Nobody is told: no notification, no home row.
  assert.deepEqual(await s.api(alice, "GET", "/api/v1/notifications"), []);
  assert.deepEqual(await s.api(alice, "GET", "/api/v1/timelines/home"), []);
  // Not again within the interval.
  assert.equal((await view(s, alice, account.id)).headers.get("mastodon-async-refresh"), null);

  // After the interval, a pin removed from the collection is removed here.
  remote.serve("/users/rita/collections/featured", { "@context": AS, id: `${remote.origin}/users/rita/collections/featured`, type: "OrderedCollection", orderedItems: [posts[3].id] });
  (s.app as { now: () => number }).now = () => Date.now() + s.app.config.profileBackfillInterval * 1000 + 1000;
  // Four posts are stored: still "few" (below profileBackfillMaxPosts).
  assert.match((await view(s, alice, account.id)).headers.get("mastodon-async-refresh") ?? "", HEADER);
  await s.drainJobs();
  const pinnedAfter = await s.api(alice, "GET", `/api/v1/accounts/${account.id}/statuses?pinned=true`);
  assert.deepEqual(pinnedAfter.map((x: any) => x.uri), [posts[3].id]);
});

test("GoToSocial, Misskey and Akkoma outbox shapes", async (t) => {
  const { s, remote } = await setup(t);
  const alice = await s.user("alice");
  // GoToSocial: `first` by URL to an OrderedCollectionPage of Creates; featured lists ids.
  const gts = remote.actor("gts", { extra: { featured: `${remote.origin}/users/gts/featured` } });
  const g1 = put(remote, noteDoc(gts, { published: published(30) }));
  remote.serve("/users/gts/outbox", { "@context": AS, id: `${gts.id}/outbox`, type: "OrderedCollection", first: `${gts.id}/outbox/page1` });
  remote.serve("/users/gts/outbox/page1", { "@context": AS, id: `${gts.id}/outbox/page1`, type: "OrderedCollectionPage", orderedItems: [create(g1)] });
  remote.serve("/users/gts/featured", { "@context": AS, id: `${gts.id}/featured`, type: "OrderedCollection", orderedItems: [g1.id] });
  // Misskey: notes carry _misskey_content and no `replies`; the page's next goes on by until_id.
  const mk = remote.actor("mk", { extra: { featured: `${remote.origin}/users/mk/collections/featured` } });
  const k1 = noteDoc(mk, { published: published(40), _misskey_content: "**hi**", content: "<p><b>hi</b></p>" });
  const k2 = noteDoc(mk, { published: published(50) });
  remote.serve("/users/mk/outbox", { "@context": AS, id: `${mk.id}/outbox`, type: "OrderedCollection", totalItems: 2, first: `${mk.id}/outbox/p` });
  remote.serve("/users/mk/outbox/p", { "@context": AS, id: `${mk.id}/outbox/p`, partOf: `${mk.id}/outbox`, type: "OrderedCollectionPage", orderedItems: [create(k1)], next: `${mk.id}/outbox/p2` });
  remote.serve("/users/mk/outbox/p2", { "@context": AS, id: `${mk.id}/outbox/p2`, partOf: `${mk.id}/outbox`, type: "OrderedCollectionPage", orderedItems: [create(k2)] });
  remote.serve("/users/mk/collections/featured", { "@context": AS, id: `${mk.id}/collections/featured`, type: "OrderedCollection", orderedItems: [k2] });
  // Akkoma: the first page embedded in the collection, bare objects among the activities.
  const ak = remote.actor("ak");
  const a1 = noteDoc(ak, { published: published(60) });
  remote.serve("/users/ak/outbox", {
    "@context": AS,
    id: `${ak.id}/outbox`,
    type: "OrderedCollection",
    first: { id: `${ak.id}/outbox?page=true`, type: "OrderedCollectionPage", orderedItems: [a1] },
  });

  for (const [actor, uris, pins] of [
    [gts, [g1.id], [g1.id]],
    [mk, [k1.id, k2.id], [k2.id]],
    [ak, [a1.id], []],
  ] as const) {
    const account = await remoteAccountOf(s, actor);
    await s.drainJobs();
    assert.match((await view(s, alice, account.id)).headers.get("mastodon-async-refresh") ?? "", HEADER, actor.username);
    await s.drainJobs();
    const listed = await s.api(alice, "GET", `/api/v1/accounts/${account.id}/statuses`);
    assert.deepEqual(listed.map((x: any) => x.uri), uris, actor.username);
    const pinned = await s.api(alice, "GET", `/api/v1/accounts/${account.id}/statuses?pinned=true`);
    assert.deepEqual(pinned.map((x: any) => x.uri), pins, actor.username);
  }
});

test("malformed items, foreign objects and forged embeds are skipped or fetched from their origin", async (t) => {
  const { s, remote } = await setup(t);
  const other = await startFakeRemote();
  t.after(() => other.close());
  const alice = await s.user("alice");
  const rita = remote.actor("rita");
  const account = await remoteAccountOf(s, rita);
  const real = put(remote, noteDoc(rita, { content: "<p>the real text</p>" }));
  const elsewhere = put(other, noteDoc(other.actor("eve")));
  remote.serve("/users/rita/outbox", {
    "@context": AS,
    id: `${rita.id}/outbox`,
    type: "OrderedCollection",
    first: `${other.origin}/pages/1`,
  });
  // The page is on another host: the embedded object of rita's is not trusted from it.
  other.serve("/pages/1", {
    "@context": AS,
    id: `${other.origin}/pages/1`,
    type: "OrderedCollectionPage",
    orderedItems: [null, 42, "not a url", { type: "Create" }, { type: "Create", object: { type: "Note" } }, create({ ...real, content: "<p>forged</p>" }), elsewhere.id, create(elsewhere)],
  });
  await s.drainJobs();
  const res = await view(s, alice, account.id);
  assert.match(res.headers.get("mastodon-async-refresh") ?? "", HEADER);
  await s.drainJobs();
  const listed = await s.api(alice, "GET", `/api/v1/accounts/${account.id}/statuses`);
  assert.deepEqual(listed.map((x: any) => x.uri), [real.id]);
  assert.match(listed[0].content, /the real text/);
  assert.equal(gets(other, elsewhere.id as string), 0, "another account's post is not fetched");
});

test("anonymous viewers, blocked accounts and well-filled profiles fetch nothing", async (t) => {
  const { s, remote } = await setup(t, { profileBackfillMaxPosts: 1 });
  const alice = await s.user("alice");
  const rita = remote.actor("rita");
  const account = await remoteAccountOf(s, rita);
  remote.serve("/users/rita/outbox", { "@context": AS, id: `${rita.id}/outbox`, type: "OrderedCollection", orderedItems: [] });
  await s.drainJobs();
  const before = remote.requests.length;
  const anon = await view(s, null, account.id);
  assert.equal(anon.status, 200);
  assert.equal(anon.headers.get("mastodon-async-refresh"), null);
  await s.api(alice, "POST", `/api/v1/accounts/${account.id}/block`);
  assert.equal((await view(s, alice, account.id)).headers.get("mastodon-async-refresh"), null);
  await s.drainJobs();
  assert.equal(remote.requests.filter((r) => r.method === "GET").length - remote.requests.slice(0, before).filter((r) => r.method === "GET").length, 0);
  await s.api(alice, "POST", `/api/v1/accounts/${account.id}/unblock`);
  // One stored post is enough at profileBackfillMaxPosts 1: nothing to fill.
  const bob = await s.user("bob");
  const post = put(remote, noteDoc(rita));
  const { resolveStatusByUri } = await import("../../src/federation/resolve/statuses.ts");
  assert.ok(await resolveStatusByUri(s.app, post.id as string));
  assert.equal((await view(s, bob, account.id)).headers.get("mastodon-async-refresh"), null);
  // The switch: off, nothing.
  (s.app.config as { profileBackfill: boolean }).profileBackfill = false;
  const carl = await s.user("carl");
  assert.equal((await view(s, carl, account.id)).headers.get("mastodon-async-refresh"), null);
});
