// Update of remote statuses (AP §5.2): explicit edits with history, ignored stale ones, implicit
// updates that only refresh counts, unknown statuses; and replies whose parent is fetched later
// by the thread.resolve job.
import { test } from "node:test";
import { MAX_THREAD_DEPTH } from "../../src/federation/thread-resolve.ts";
import assert from "node:assert/strict";
import { parseApNote } from "../../src/federation/parse/note.ts";
import { deleteRemoteStatus, updateRemoteStatus } from "../../src/federation/remote-statuses.ts";
import { findStatusByUri, type Status } from "../../src/storage/statuses.ts";
import { type Doc, followRemote, mentionOf, noteDoc, remoteAccountOf, startWorld, stored, type World } from "./remote-status-helpers.ts";

const update = (w: World, doc: Doc) => updateRemoteStatus(w.s.app, parseApNote(doc), w.author);
const at = (doc: Doc, seconds: number) => new Date(Date.parse(doc.published as string) + seconds * 1000).toISOString();

test("explicit edits keep a history; older ones are ignored; implicit updates refresh only counts", async (t) => {
  const w = await startWorld(t);
  const { s, remote, rita } = w;
  const alice = await s.user("alice");
  const bob = await s.user("bob");
  followRemote(w, alice);
  const img = (n: number, alt: string) => ({ type: "Document", mediaType: "image/png", url: `${remote.origin}/m/${n}.png`, name: alt });
  const doc = noteDoc(rita, { content: "<p>first</p>", attachment: [img(1, "one")] });
  const status = await stored(w, doc);
  await s.api(alice, "POST", `/api/v1/statuses/${status.id}/reblog`);
  await s.drainJobs();

  // Edit 1: new text and a new alt text, mentioning bob.
  const edit1 = { ...doc, content: "<p>second</p>", updated: at(doc, 60), attachment: [img(1, "one, better")], cc: [rita.followers, bob.account.uri], tag: [mentionOf(w, bob)] };
  const edited = (await update(w, edit1)) as Status;
  await s.drainJobs();
  assert.equal(edited.id, status.id);
  let e = await s.api(alice, "GET", `/api/v1/statuses/${status.id}`);
  assert.deepEqual([e.content, e.edited_at, e.media_attachments[0].description], ["<p>second</p>", edit1.updated, "one, better"]);
  assert.deepEqual(e.mentions.map((m: { id: string }) => m.id), [bob.id]);
  let history = await s.api(alice, "GET", `/api/v1/statuses/${status.id}/history`);
  assert.deepEqual(
    history.map((h: any) => [h.content, h.created_at]),
    [
      ["<p>first</p>", doc.published],
      ["<p>second</p>", edit1.updated],
    ],
  );
  const kinds = async (who: typeof alice) => (await s.api(who, "GET", "/api/v1/notifications")).map((n: any) => [n.type, n.status.id]);
  assert.deepEqual(await kinds(alice), [["update", status.id]], "the booster hears of the edit");
  assert.deepEqual(await kinds(bob), [["mention", status.id]], "the newly mentioned too");

  // An update older than the last edit changes nothing.
  assert.equal((await update(w, { ...doc, content: "<p>stale</p>", updated: at(doc, 30) }))?.id, status.id);
  // Without `updated`: only the origin's counts.
  await update(w, { ...edit1, content: "<p>sneaky</p>", updated: undefined, likes: { type: "Collection", totalItems: 10 }, shares: { type: "Collection", totalItems: 4 } });
  e = await s.api(alice, "GET", `/api/v1/statuses/${status.id}`);
  assert.deepEqual([e.content, e.favourites_count, e.reblogs_count], ["<p>second</p>", 10, 4]);

  // Edit 2: the attachment is replaced, the mention dropped (bob keeps access, silently).
  const edit2 = { ...doc, content: "<p>third</p>", updated: at(doc, 120), attachment: [img(2, "two")], tag: [] };
  await update(w, edit2);
  e = await s.api(alice, "GET", `/api/v1/statuses/${status.id}`);
  assert.deepEqual(e.media_attachments.map((m: any) => [m.url, m.description]), [[`${remote.origin}/m/2.png`, "two"]]);
  assert.deepEqual(e.mentions, []);
  history = await s.api(alice, "GET", `/api/v1/statuses/${status.id}/history`);
  assert.deepEqual(history.map((h: any) => h.content), ["<p>first</p>", "<p>second</p>", "<p>third</p>"]);
  // Each revision shows the media it had.
  assert.deepEqual(
    history.map((h: any) => h.media_attachments.map((m: any) => m.url)),
    [[`${remote.origin}/m/1.png`], [`${remote.origin}/m/1.png`], [`${remote.origin}/m/2.png`]],
  );

  // A newer update that only changes the language: no revision, edited_at stays.
  await update(w, { ...edit2, updated: at(doc, 180), contentMap: { fr: "<p>third</p>" } });
  e = await s.api(alice, "GET", `/api/v1/statuses/${status.id}`);
  assert.deepEqual([e.language, e.edited_at], ["fr", edit2.updated]);
  assert.equal((await s.api(alice, "GET", `/api/v1/statuses/${status.id}/history`)).length, 3);

  // Deleting it takes every revision's media rows with it.
  const mediaRows = () => (s.app.db.prepare("SELECT count(*) AS n FROM media_attachments WHERE account_id = ?").get(BigInt(w.author.id)) as { n: bigint }).n;
  assert.equal(mediaRows(), 2n);
  deleteRemoteStatus(s.app, doc.id as string, w.author);
  assert.equal(mediaRows(), 0n);
});

test("an Update of an unknown status is a Create, unless it was published over a day ago", async (t) => {
  const w = await startWorld(t);
  const alice = await w.s.user("alice");
  followRemote(w, alice);
  const fresh = noteDoc(w.rita, { updated: new Date().toISOString() });
  assert.equal((await update(w, fresh))?.uri, fresh.id);
  const old = noteDoc(w.rita, { published: "2020-01-01T00:00:00Z", updated: new Date().toISOString() });
  assert.equal(await update(w, old), undefined);
  // Another account of the same server cannot edit it.
  const mallory = await remoteAccountOf(w.s, w.remote.actor("mallory"));
  const forged = { ...fresh, attributedTo: undefined, content: "<p>forged</p>", updated: new Date(Date.now() + 1000).toISOString() };
  assert.equal(await updateRemoteStatus(w.s.app, parseApNote(forged), mallory), undefined);
  assert.equal((await w.s.api(alice, "GET", `/api/v1/statuses/${findStatusByUri(w.s.app.db, fresh.id as string)!.id}`)).content, fresh.content);
});

test("a reply whose parent is unknown is linked once the thread.resolve job has fetched the parent", async (t) => {
  const w = await startWorld(t);
  const { s, remote, rita } = w;
  const alice = await s.user("alice");
  followRemote(w, alice);
  await s.drainJobs();
  const context = `${remote.origin}/contexts/1`;
  const parentDoc = noteDoc(rita, { content: "<p>parent</p>", context });
  remote.serve(new URL(parentDoc.id as string).pathname, parentDoc);
  const reply = await stored(w, noteDoc(rita, { content: "<p>reply</p>", inReplyTo: parentDoc.id, context }));
  assert.deepEqual([reply.inReplyToId, reply.inReplyToUri], [null, parentDoc.id]);
  let e = await s.api(alice, "GET", `/api/v1/statuses/${reply.id}`);
  assert.equal(e.in_reply_to_id, null);

  await s.drainJobs();
  assert.ok(remote.requests.some((r) => r.method === "GET" && r.path === new URL(parentDoc.id as string).pathname && r.signed), "signed fetch of the parent");
  e = await s.api(alice, "GET", `/api/v1/statuses/${reply.id}`);
  const parentId = e.in_reply_to_id as string;
  assert.ok(parentId, "linked");
  assert.equal(e.in_reply_to_account_id, w.author.id);
  const p = await s.api(alice, "GET", `/api/v1/statuses/${parentId}`);
  assert.deepEqual([p.uri, p.content, p.replies_count], [parentDoc.id, "<p>parent</p>", 1]);
  const ctx = await s.api(alice, "GET", `/api/v1/statuses/${reply.id}/context`);
  assert.deepEqual(ctx.ancestors.map((x: { id: string }) => x.id), [parentId]);
  // Both sit in the thread of the shared context uri.
  const rows = s.app.db.prepare("SELECT conversation_id FROM statuses WHERE id IN (?, ?)").all(BigInt(reply.id), BigInt(parentId)) as { conversation_id: bigint }[];
  assert.equal(rows.length, 2);
  assert.equal(rows[0].conversation_id, rows[1].conversation_id);
  // A self-reply in a followed account's thread now reaches the follower's home.
  const home = await s.api(alice, "GET", "/api/v1/timelines/home");
  assert.ok(home.some((x: { id: string }) => x.id === reply.id));
});

test("a reply whose parent cannot be fetched keeps its parent uri", async (t) => {
  const w = await startWorld(t);
  const alice = await w.s.user("alice");
  followRemote(w, alice);
  const missing = `${w.rita.id}/statuses/gone`;
  w.remote.serve(new URL(missing).pathname, 404);
  const reply = await stored(w, noteDoc(w.rita, { inReplyTo: missing }));
  await w.s.drainJobs();
  const e = await w.s.api(alice, "GET", `/api/v1/statuses/${reply.id}`);
  assert.equal(e.in_reply_to_id, null);
  const row = w.s.app.db.prepare("SELECT in_reply_to_uri FROM statuses WHERE id = ?").get(BigInt(reply.id)) as { in_reply_to_uri: string };
  assert.equal(row.in_reply_to_uri, missing);
});

test("an endless chain of unknown parents is followed only MAX_THREAD_DEPTH steps up", async (t) => {
  const w = await startWorld(t);
  const alice = await w.s.user("alice");
  followRemote(w, alice);
  // Every post replies to one more: a chain longer than we will follow.
  const chainDoc = (n: number) => noteDoc(w.rita, { id: `${w.rita.id}/statuses/chain-${n}`, content: `<p>${n}</p>`, inReplyTo: `${w.rita.id}/statuses/chain-${n + 1}` });
  for (let n = 1; n <= MAX_THREAD_DEPTH + 5; n++) w.remote.serve(`/users/${w.rita.username}/statuses/chain-${n}`, chainDoc(n));
  await stored(w, chainDoc(0));
  await w.s.drainJobs();
  const served = w.remote.requests.filter((r) => r.path.includes("/statuses/chain-")).length;
  assert.equal(served, MAX_THREAD_DEPTH, "one fetch per level, and no more");
  const count = w.s.app.db.prepare("SELECT count(*) AS n FROM statuses WHERE uri LIKE ?").get(`${w.rita.id}/statuses/chain-%`) as { n: bigint };
  assert.equal(count.n, BigInt(MAX_THREAD_DEPTH + 1));
});
