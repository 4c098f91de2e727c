// Issue 19 part 6 and the bad-input cases: a 10,000-reply thread stops at its bound (pages
// served lazily), a host that answers in 30 s times the job out (the API never waits), the
// per-host rate, and the thread shapes of Misskey (no `replies`) and Akkoma (embedded pages).
import { test } from "node:test";
import assert from "node:assert/strict";
import { resolveStatusByUri } from "../../src/federation/resolve/statuses.ts";
import { type FakeRemote, startFakeRemote } from "../helpers/fake-remote.ts";
import { startTestServer, type TestServer } from "../helpers/server.ts";
import type { Config } from "../../src/config/config.ts";
import { noteDoc, type Doc } from "./remote-status-helpers.ts";

const AS = "https://www.w3.org/ns/activitystreams";
const HEADER = /^id="([A-Za-z0-9_-]+)", retry=3, result_count=(\d+)$/;
const path = (url: string) => new URL(url).pathname;

async function setup(t: { after: (fn: () => Promise<void>) => void }, hosts: number, config: Partial<Config> = {}) {
  const s: TestServer = await startTestServer({ config });
  t.after(() => s.close());
  const remotes: FakeRemote[] = [];
  for (let i = 0; i < hosts; i++) {
    const r = await startFakeRemote();
    t.after(() => r.close());
    remotes.push(r);
  }
  return { s, remotes, alice: await s.user("alice") };
}

function put(remote: FakeRemote, doc: Doc): Doc {
  remote.serve(path(doc.id as string), doc);
  return doc;
}

async function stored(s: TestServer, note: Doc): Promise<string> {
  const st = await resolveStatusByUri(s.app, note.id as string);
  assert.ok(st);
  return st.id;
}

test("a 10,000-reply thread stops at threadBackfillMaxPosts, fetching only the pages it needs", async (t) => {
  const { s, remotes: [A], alice } = await setup(t, 1, { threadBackfillMaxPosts: 50, backfillHostRate: 1000, backfillHostBurst: 1000 });
  const ann = A.actor("ann");
  const root = noteDoc(ann);
  const rid = root.id as string;
  root.replies = { id: `${rid}/replies`, type: "Collection", first: `${rid}/replies?page=0` };
  put(A, root);
  const TOTAL = 10_000, PER_PAGE = 100;
  // Pages and replies are made when asked for: the thread exists only as far as it is read.
  A.dynamic = (p) => {
    const page = /\/replies\?page=(\d+)$/.exec(p);
    if (page && p.startsWith(path(rid))) {
      const n = Number(page[1]);
      const items = Array.from({ length: PER_PAGE }, (_, i) => `${ann.id}/statuses/r${n * PER_PAGE + i}`);
      return { "@context": AS, id: `${rid}/replies?page=${n}`, type: "CollectionPage", items, ...((n + 1) * PER_PAGE < TOTAL ? { next: `${rid}/replies?page=${n + 1}` } : {}) };
    }
    const reply = /\/statuses\/r(\d+)$/.exec(p);
    if (reply) return noteDoc(ann, { id: `${ann.id}/statuses/r${reply[1]}`, inReplyTo: rid, content: `<p>reply ${reply[1]}</p>` });
    return undefined;
  };
  const id = await stored(s, root);
  const m = HEADER.exec((await s.req(alice, "GET", `/api/v1/statuses/${id}/context`)).headers.get("mastodon-async-refresh") ?? "");
  assert.ok(m);
  await s.drainJobs();
  assert.equal((await s.api(alice, "GET", `/api/v1_alpha/async_refreshes/${m[1]}`)).async_refresh.result_count, 50);
  const ctx = await s.api(alice, "GET", `/api/v1/statuses/${id}/context`);
  assert.equal(ctx.descendants.length, 50);
  const gets = (re: RegExp) => A.requests.filter((r) => r.method === "GET" && re.test(r.path)).length;
  assert.equal(gets(/\/replies\?page=/), 1, "one page of a hundred was enough");
  assert.equal(gets(/\/statuses\/r\d+$/), 50, "each reply fetched once, none past the bound");
});

test("a host that answers in 30 s times the job out at threadBackfillTimeout; the API never waits", async (t) => {
  const { s, remotes: [A, B], alice } = await setup(t, 2, { threadBackfillTimeout: 1 });
  const root = noteDoc(A.actor("ann"));
  const slowReply = put(B, noteDoc(B.actor("bob"), { inReplyTo: root.id }));
  const fastReply = put(A, noteDoc(A.actor("ann"), { inReplyTo: root.id }));
  root.replies = { id: `${root.id}/replies`, type: "Collection", first: { type: "CollectionPage", items: [fastReply.id, slowReply.id] } };
  put(A, root);
  const id = await stored(s, root);
  await s.drainJobs();
  B.delay = (p) => (p === path(slowReply.id as string) ? 30_000 : 0);
  const m = HEADER.exec((await s.req(alice, "GET", `/api/v1/statuses/${id}/context`)).headers.get("mastodon-async-refresh") ?? "");
  assert.ok(m);
  const started = Date.now();
  let finished = false;
  const drained = s.drainJobs().then(() => (finished = true));
  // While the job waits on B, the API answers from what is stored.
  for (;;) {
    if (B.requests.some((r) => r.path === path(slowReply.id as string)) || finished) break;
    await new Promise((r) => setImmediate(r));
  }
  const during = await s.req(alice, "GET", `/api/v1/statuses/${id}/context`);
  assert.equal(during.status, 200);
  assert.equal(finished, false, "the job was still waiting on the slow host");
  assert.match(during.headers.get("mastodon-async-refresh") ?? "", /^id=/);
  await drained;
  // Without the abort the request would end only at safe-fetch's 10 s idle timeout.
  assert.ok(Date.now() - started < 9_000, `the job stopped at its time limit (${Date.now() - started} ms)`);
  assert.equal((await s.api(alice, "GET", `/api/v1_alpha/async_refreshes/${m[1]}`)).async_refresh.status, "finished");
  const ctx = await s.api(alice, "GET", `/api/v1/statuses/${id}/context`);
  assert.deepEqual(ctx.descendants.map((x: any) => x.uri), [fastReply.id], "what came before the limit is kept");
});

test("requests to one host keep to backfillHostRate", async (t) => {
  const { s, remotes: [A], alice } = await setup(t, 1, { backfillHostRate: 10, backfillHostBurst: 1 });
  const ann = A.actor("ann");
  const root = noteDoc(ann);
  const replies = [1, 2, 3, 4].map(() => put(A, noteDoc(ann, { inReplyTo: root.id })));
  root.replies = { id: `${root.id}/replies`, type: "Collection", first: { type: "CollectionPage", items: replies.map((r) => r.id) } };
  put(A, root);
  const id = await stored(s, root);
  await s.drainJobs();
  const from = A.requests.length;
  await s.req(alice, "GET", `/api/v1/statuses/${id}/context`);
  await s.drainJobs();
  const times = A.requests.slice(from).filter((r) => r.method === "GET" && r.path.includes("/statuses/")).map((r) => r.at);
  assert.equal(times.length, 5, "the root, then each reply");
  // A token every 100 ms: consecutive requests at least ~100 ms apart (timer slack allowed).
  for (let i = 1; i < times.length; i++) assert.ok(times[i] - times[i - 1] >= 80, `gap ${i}: ${times[i] - times[i - 1]} ms`);
});

test("Misskey threads (no `replies`, _misskey_content) are walked up; Akkoma's embedded id-less pages walked down", async (t) => {
  const { s, remotes: [M, K], alice } = await setup(t, 2);
  const mk = M.actor("9hx3mk");
  const top = put(M, noteDoc(mk, { _misskey_content: "top", content: "<p>top</p>", _misskey_quote: null }));
  const leaf = put(M, noteDoc(mk, { inReplyTo: top.id, _misskey_content: "leaf", content: "<p>leaf</p>" }));
  const leafId = (await resolveStatusByUri(s.app, leaf.id as string, { backfill: true }))!.id;
  assert.match((await s.req(alice, "GET", `/api/v1/statuses/${leafId}/context`)).headers.get("mastodon-async-refresh") ?? "", HEADER);
  await s.drainJobs();
  assert.deepEqual((await s.api(alice, "GET", `/api/v1/statuses/${leafId}/context`)).ancestors.map((x: any) => x.uri), [top.id]);

  const akko = K.actor("akko");
  const root = noteDoc(akko);
  const reply = put(K, noteDoc(akko, { inReplyTo: root.id }));
  // Akkoma: a Collection whose `first` is an embedded CollectionPage without an id, items as ids.
  root.replies = { id: `${root.id}/replies`, type: "Collection", first: { type: "CollectionPage", partOf: `${root.id}/replies`, items: [reply.id] } };
  put(K, root);
  const rootId = await stored(s, root);
  await s.req(alice, "GET", `/api/v1/statuses/${rootId}/context`);
  await s.drainJobs();
  assert.deepEqual((await s.api(alice, "GET", `/api/v1/statuses/${rootId}/context`)).descendants.map((x: any) => x.uri), [reply.id]);
});

test("a viewer who blocks a thread's author, or its domain, makes this server fetch nothing", async (t) => {
  const { s, remotes: [A], alice } = await setup(t, 1);
  const ann = A.actor("ann");
  const root = noteDoc(ann);
  root.replies = `${root.id}/replies`;
  put(A, root);
  const id = await stored(s, root);
  await s.drainJobs();
  const annId = (await s.api(alice, "GET", `/api/v1/statuses/${id}`)).account.id;
  await s.api(alice, "POST", `/api/v1/accounts/${annId}/block`);
  const getsSoFar = () => A.requests.filter((r) => r.method === "GET").length;
  const before = getsSoFar();
  assert.equal((await s.req(alice, "GET", `/api/v1/statuses/${id}/context`)).headers.get("mastodon-async-refresh"), null);
  await s.api(alice, "POST", `/api/v1/accounts/${annId}/unblock`);
  const bob = await s.user("bob");
  await s.api(bob, "POST", "/api/v1/domain_blocks", { domain: A.domain });
  assert.equal((await s.req(bob, "GET", `/api/v1/statuses/${id}/context`)).headers.get("mastodon-async-refresh"), null);
  await s.drainJobs();
  assert.equal(getsSoFar(), before, "nothing fetched from the host (the Block itself is delivered)");
});
