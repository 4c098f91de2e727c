// Issue 19 part 1: remote threads completed in the background behind Mastodon-Async-Refresh,
// against fake remote servers on three hosts (real HTTP).
import { test } from "node:test";
import assert from "node:assert/strict";
import { resolveStatusByUri } from "../../src/federation/resolve/statuses.ts";
import { idTime } from "../../src/lib/ids.ts";
import { type FakeActor, type FakeRemote, startFakeRemote } from "../helpers/fake-remote.ts";
import { startTestServer, type TestServer } from "../helpers/server.ts";
import type { Config } from "../../src/config/config.ts";
import { createDomainBlock } from "../../src/services/domain-blocks.ts";
import { noteDoc, type Doc } from "./remote-status-helpers.ts";

const HEADER = /^id="([A-Za-z0-9_-]+)", retry=3, result_count=(\d+)$/;

async function hosts(t: { after: (fn: () => Promise<void>) => void }, n: number): Promise<FakeRemote[]> {
  const out: FakeRemote[] = [];
  for (let i = 0; i < n; i++) {
    const r = await startFakeRemote();
    t.after(() => r.close());
    out.push(r);
  }
  return out;
}

async function server(t: { after: (fn: () => Promise<void>) => void }, config: Partial<Config> = {}): Promise<TestServer> {
  const s = await startTestServer({ config });
  t.after(() => s.close());
  return s;
}

/** Serves `doc` at its own id's path on `remote`. */
function put(remote: FakeRemote, doc: Doc): Doc {
  remote.serve(new URL(doc.id as string).pathname, doc);
  return doc;
}

const collection = (id: string, first: unknown): Doc => ({ "@context": "https://www.w3.org/ns/activitystreams", id, type: "Collection", first });
const page = (id: string, items: unknown[], next?: string): Doc => ({
  "@context": "https://www.w3.org/ns/activitystreams",
  id,
  type: "CollectionPage",
  items,
  ...(next ? { next } : {}),
});
const path = (url: string) => new URL(url).pathname;
const fetched = (remote: FakeRemote, url: string) => remote.requests.filter((r) => r.method === "GET" && r.path === path(url)).length;

async function storedRoot(s: TestServer, note: Doc): Promise<string> {
  const st = await resolveStatusByUri(s.app, note.id as string);
  assert.ok(st);
  return st.id;
}

test("a thread with replies on three hosts is completed, without notifications, in date order", async (t) => {
  const s = await server(t);
  const [A, B, C] = await hosts(t, 3);
  const alice = await s.user("alice");
  const a: FakeActor = A.actor("ann"), b = B.actor("bob"), c = C.actor("cyd");
  const root = noteDoc(a);
  const rootId = root.id as string;
  // Mastodon's shape: an embedded first page (self-replies), `next` to the others' replies.
  root.replies = collection(`${rootId}/replies`, page(`${rootId}/replies/p1`, [], `${rootId}/replies/p2`));
  put(A, root);
  const fromB = noteDoc(b, {
    inReplyTo: rootId,
    published: "2024-05-01T10:00:00Z",
    content: `<p>@alice hi</p>`,
    tag: [{ type: "Mention", href: alice.account.uri, name: "@alice" }],
    cc: [alice.account.uri],
  });
  // GoToSocial's shape: the collection by URL, then an ordered page by URL with ids.
  fromB.replies = `${fromB.id}/replies`;
  put(B, fromB);
  B.serve(path(`${fromB.id}/replies`), { "@context": "https://www.w3.org/ns/activitystreams", id: `${fromB.id}/replies`, type: "OrderedCollection", first: `${fromB.id}/replies/1` });
  const fromC2 = put(C, noteDoc(c, { inReplyTo: fromB.id, content: "<p>deep on C</p>" }));
  B.serve(path(`${fromB.id}/replies/1`), { "@context": "https://www.w3.org/ns/activitystreams", id: `${fromB.id}/replies/1`, type: "OrderedCollectionPage", orderedItems: [fromC2.id] });
  const fromC = put(C, noteDoc(c, {
    inReplyTo: rootId,
    content: `<p>the real text <a href="https://example.com/news">link</a> #backfilled</p>`,
    tag: [{ type: "Hashtag", name: "#backfilled", href: `${C.origin}/tags/backfilled` }],
  }));
  // A page on A embeds C's post with other text: it is fetched from C, never trusted.
  A.serve(path(`${rootId}/replies/p2`), page(`${rootId}/replies/p2`, [fromB.id, { ...fromC, content: "<p>forged by A</p>" }]));

  const rootStatusId = await storedRoot(s, root);
  const first = await s.req(alice, "GET", `/api/v1/statuses/${rootStatusId}/context`);
  assert.equal(first.status, 200);
  assert.deepEqual(first.body.descendants, []);
  const m = HEADER.exec(first.headers.get("mastodon-async-refresh") ?? "");
  assert.ok(m, `header: ${first.headers.get("mastodon-async-refresh")}`);
  assert.equal(m[2], "0");
  const running = await s.api(alice, "GET", `/api/v1_alpha/async_refreshes/${m[1]}`);
  assert.deepEqual(running, { async_refresh: { id: m[1], status: "running", result_count: 0 } });
  // While it runs, the header names the same refresh.
  const again = await s.req(alice, "GET", `/api/v1/statuses/${rootStatusId}/context`);
  assert.equal(HEADER.exec(again.headers.get("mastodon-async-refresh") ?? "")?.[1], m[1]);

  await s.drainJobs();
  const done = await s.api(alice, "GET", `/api/v1_alpha/async_refreshes/${m[1]}`);
  assert.deepEqual(done, { async_refresh: { id: m[1], status: "finished", result_count: 3 } });
  const ctx = await s.req(alice, "GET", `/api/v1/statuses/${rootStatusId}/context`);
  assert.equal(ctx.headers.get("mastodon-async-refresh"), null, "not again within the interval");
  const byUri = new Map<unknown, any>(ctx.body.descendants.map((d: any) => [d.uri, d]));
  assert.deepEqual([...byUri.keys()].sort(), [fromB.id, fromC.id, fromC2.id].sort());
  assert.match(byUri.get(fromC.id).content, /the real text/);
  assert.equal(byUri.get(fromC.id).tags[0].name, "backfilled");
  assert.ok(fetched(C, fromC.id as string) >= 1, "C's post fetched from C");
  assert.equal(byUri.get(fromC2.id).in_reply_to_id, byUri.get(fromB.id).id);
  // Part 4: the id comes from the publication time, so it sorts into the past.
  assert.equal(idTime(byUri.get(fromB.id).id), Date.parse("2024-05-01T10:00:00Z"));
  // Part 5: the mention of alice in a backfilled post notifies nobody, nor reaches a home.
  assert.deepEqual(await s.api(alice, "GET", "/api/v1/notifications"), []);
  assert.deepEqual(await s.api(alice, "GET", "/api/v1/timelines/home"), []);
  // Nor counts for trends or the tag's history (posted a minute ago: it would count today).
  const tag = await s.api(alice, "GET", "/api/v1/tags/backfilled");
  assert.equal(tag.history[0].uses, "0");
  const count = (sql: string) => Number((s.app.db.prepare(sql).get() as { n: unknown }).n);
  assert.equal(count("SELECT count(*) AS n FROM trend_uses"), 0);
  assert.equal(count("SELECT count(*) AS n FROM trend_link_queue"), 0);

  // After the interval, viewing again refreshes again.
  const later = s.app.now() + s.app.config.threadBackfillInterval * 1000 + 1000;
  (s.app as { now: () => number }).now = () => later;
  const after = await s.req(alice, "GET", `/api/v1/statuses/${rootStatusId}/context`);
  assert.match(after.headers.get("mastodon-async-refresh") ?? "", HEADER);
  await s.drainJobs();
});

test("missing ancestors are fetched up the thread", async (t) => {
  const s = await server(t);
  const [A, B] = await hosts(t, 2);
  const alice = await s.user("alice");
  const a = A.actor("ann"), b = B.actor("bob");
  const top = put(A, noteDoc(a, { content: "<p>top</p>" }));
  const mid = put(B, noteDoc(b, { inReplyTo: top.id }));
  const leaf = put(A, noteDoc(a, { inReplyTo: mid.id }));
  // The leaf stored alone, as a search would (its parent is left to the walk).
  const leafStatus = await resolveStatusByUri(s.app, leaf.id as string, { backfill: true });
  assert.ok(leafStatus);
  const res = await s.req(alice, "GET", `/api/v1/statuses/${leafStatus.id}/context`);
  assert.match(res.headers.get("mastodon-async-refresh") ?? "", HEADER);
  await s.drainJobs();
  const ctx = await s.api(alice, "GET", `/api/v1/statuses/${leafStatus.id}/context`);
  assert.deepEqual(ctx.ancestors.map((x: any) => x.uri), [top.id, mid.id]);
});

test("a replies collection pointing to itself, pages that 404 and unusable items end the walk cleanly", async (t) => {
  const s = await server(t);
  const [A] = await hosts(t, 1);
  const alice = await s.user("alice");
  const a = A.actor("ann");
  const root = noteDoc(a);
  const rid = root.id as string;
  root.replies = `${rid}/replies`;
  put(A, root);
  // The collection is its own first page and its own next.
  A.serve(path(`${rid}/replies`), { ...page(`${rid}/replies`, [`${rid}/gone`, 42, { type: "Note" }, "not a url"], `${rid}/replies`), first: `${rid}/replies` });
  A.serve(path(`${rid}/gone`), 404);
  const other = noteDoc(a);
  other.replies = collection(`${other.id}/replies`, `${other.id}/replies/missing`);
  put(A, other);
  const ok = put(A, noteDoc(a, { inReplyTo: other.id }));
  A.serve(path(`${other.id}/replies/missing`), { ...page(`${other.id}/replies/missing`, [ok.id], `${other.id}/replies/404`) });
  A.serve(path(`${other.id}/replies/404`), 404);

  const id1 = await storedRoot(s, root);
  const r1 = await s.req(alice, "GET", `/api/v1/statuses/${id1}/context`);
  const m1 = HEADER.exec(r1.headers.get("mastodon-async-refresh") ?? "");
  assert.ok(m1);
  const id2 = await storedRoot(s, other);
  await s.req(alice, "GET", `/api/v1/statuses/${id2}/context`);
  await s.drainJobs();
  assert.equal(fetched(A, `${rid}/replies`), 1, "a page already seen is not fetched again");
  assert.deepEqual(await s.api(alice, "GET", `/api/v1_alpha/async_refreshes/${m1[1]}`), {
    async_refresh: { id: m1[1], status: "finished", result_count: 0 },
  });
  const ctx = await s.api(alice, "GET", `/api/v1/statuses/${id2}/context`);
  assert.deepEqual(ctx.descendants.map((x: any) => x.uri), [ok.id], "items before the 404 page are kept");
});

test("anonymous requests never fetch; unknown refreshes are 404; local-only threads need no refresh", async (t) => {
  const s = await server(t);
  const [A] = await hosts(t, 1);
  const alice = await s.user("alice");
  const root = noteDoc(A.actor("ann"));
  root.replies = `${root.id}/replies`;
  put(A, root);
  const id = await storedRoot(s, root);
  await s.drainJobs(); // the author's own follow-up jobs (avatar, counts)
  const before = A.requests.length;
  const anon = await s.req(null, "GET", `/api/v1/statuses/${id}/context`);
  assert.equal(anon.status, 200);
  assert.equal(anon.headers.get("mastodon-async-refresh"), null);
  await s.drainJobs();
  assert.equal(A.requests.length, before, "no request to the remote");
  assert.equal((await s.req(alice, "GET", "/api/v1_alpha/async_refreshes/nope")).status, 404);
  assert.equal((await s.req(null, "GET", "/api/v1_alpha/async_refreshes/nope")).status, 401);
  const local = await s.api(alice, "POST", "/api/v1/statuses", { status: "mine" });
  const res = await s.req(alice, "GET", `/api/v1/statuses/${local.id}/context`);
  assert.equal(res.headers.get("mastodon-async-refresh"), null);
});

test("favouriting or replying to a remote post completes its thread", async (t) => {
  const s = await server(t);
  const [A] = await hosts(t, 1);
  const alice = await s.user("alice");
  const a = A.actor("ann");
  const root = noteDoc(a);
  root.replies = collection(`${root.id}/replies`, page(`${root.id}/replies/1`, [], `${root.id}/replies/2`));
  put(A, root);
  const reply = put(A, noteDoc(a, { inReplyTo: root.id }));
  A.serve(path(`${root.id}/replies/2`), page(`${root.id}/replies/2`, [reply.id]));
  const id = await storedRoot(s, root);
  await s.api(alice, "POST", `/api/v1/statuses/${id}/favourite`);
  await s.drainJobs();
  const ctx = await s.api(alice, "GET", `/api/v1/statuses/${id}/context`);
  assert.deepEqual(ctx.descendants.map((x: any) => x.uri), [reply.id]);
});

test("a thread larger than threadBackfillMaxPosts stops at the bound", async (t) => {
  const s = await server(t, { threadBackfillMaxPosts: 3 });
  const [A] = await hosts(t, 1);
  const alice = await s.user("alice");
  const a = A.actor("ann");
  const root = noteDoc(a);
  const replies = Array.from({ length: 8 }, () => put(A, noteDoc(a, { inReplyTo: root.id })));
  root.replies = collection(`${root.id}/replies`, page(`${root.id}/replies/1`, replies.map((r) => r.id)));
  put(A, root);
  const id = await storedRoot(s, root);
  const m = HEADER.exec((await s.req(alice, "GET", `/api/v1/statuses/${id}/context`)).headers.get("mastodon-async-refresh") ?? "");
  assert.ok(m);
  await s.drainJobs();
  const ctx = await s.api(alice, "GET", `/api/v1/statuses/${id}/context`);
  assert.equal(ctx.descendants.length, 3);
  assert.equal((await s.api(alice, "GET", `/api/v1_alpha/async_refreshes/${m[1]}`)).async_refresh.result_count, 3);
  assert.equal(replies.filter((r) => fetched(A, r.id as string) > 0).length, 3, "nothing fetched past the bound");
});

test("a suspended domain is never asked", async (t) => {
  const s = await server(t);
  const [A] = await hosts(t, 1);
  const alice = await s.user("alice");
  const root = noteDoc(A.actor("ann"));
  root.replies = `${root.id}/replies`;
  put(A, root);
  const id = await storedRoot(s, root);
  await s.drainJobs();
  assert.match((await s.req(alice, "GET", `/api/v1/statuses/${id}/context`)).headers.get("mastodon-async-refresh") ?? "", HEADER);
  const before = A.requests.length;
  createDomainBlock(s.app, { domain: "127.0.0.1", severity: "suspend" });
  await s.drainJobs();
  assert.equal(A.requests.length, before);
});
