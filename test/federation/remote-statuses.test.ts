// Remote posts coming in (AP §4, §5.1, §5.3): stored through persistStatus, so notifications,
// home, tag timelines and the REST entity work as for local posts; visibility from addressing;
// the acceptance filter; origin rules; Delete and tombstones.
import { test } from "node:test";
import assert from "node:assert/strict";
import sharp from "sharp";
import { createDomainBlock } from "../../src/services/domain-blocks.ts";
import { deleteRemoteStatus } from "../../src/federation/remote-statuses.ts";
import { idTime } from "../../src/lib/ids.ts";
import { findStatusByUri } from "../../src/storage/statuses.ts";
import { hasTombstone } from "../../src/storage/tombstones.ts";
import { type Doc, followRemote, mentionOf, noteDoc, PUBLIC, remoteAccountOf, startWorld, store, stored, view } from "./remote-status-helpers.ts";
import { type FakeActor, startFakeRemote } from "../helpers/fake-remote.ts";

test("a remote public post mentioning a local user: mention, home, tag timeline and the REST entity", async (t) => {
  const w = await startWorld(t);
  const { s, remote, rita } = w;
  const alice = await s.user("alice");
  const bob = await s.user("bob");
  followRemote(w, alice);
  const zed = remote.actor("zed"); // known only once the mention is resolved
  const image = `${remote.origin}/media/heron.jpg`;
  const doc = noteDoc(rita, {
    content:
      `<p><span class="h-card" translate="no"><a href="${bob.account.url}" class="u-url mention">@<span>bob</span></a></span> ` +
      `a heron <a href="${remote.origin}/tags/Herons" class="mention hashtag" rel="tag">#<span>Herons</span></a> :heron:</p>`,
    contentMap: { en: "<p>…</p>" },
    cc: [rita.followers, bob.account.uri, zed.id],
    tag: [
      mentionOf(w, bob),
      { type: "Mention", href: zed.id, name: `@zed@${remote.domain}` },
      { type: "Mention", href: `${remote.origin}/users/nobody`, name: "@nobody" },
      { type: "Hashtag", href: `${remote.origin}/tags/herons`, name: "#Herons" },
      { type: "Emoji", id: `${remote.origin}/emojis/1`, name: ":heron:", icon: { type: "Image", mediaType: "image/png", url: `${remote.origin}/emojis/heron.png` } },
    ],
    attachment: [
      { type: "Document", mediaType: "image/jpeg", url: image, name: "A heron", blurhash: "UFF~ggxu00NG~qWBRjt7?bRjIUt7_3WBRjof", focalPoint: [-0.2, 0.4], width: 1200, height: 800 },
    ],
    likes: { type: "Collection", totalItems: 3 },
  });
  remote.serveFile("/emojis/heron.png", await sharp({ create: { width: 8, height: 8, channels: 3, background: "#336699" } }).png().toBuffer(), "image/png");
  const status = await stored(w, doc);
  await s.drainJobs();

  // The id keeps the publication time, as Mastodon's id_at.
  assert.equal(idTime(status.id), Date.parse(doc.published as string));
  const [n] = await s.api(bob, "GET", "/api/v1/notifications");
  assert.equal(n.type, "mention");
  assert.equal(n.status.id, status.id);
  assert.equal(n.account.acct, `rita@${remote.domain}`);
  const home = await s.api(alice, "GET", "/api/v1/timelines/home");
  assert.deepEqual(home.map((x: { id: string }) => x.id), [status.id]);
  const tagged = await s.api(null, "GET", "/api/v1/timelines/tag/herons");
  assert.deepEqual(tagged.map((x: { id: string }) => x.id), [status.id]);

  const e = await s.api(alice, "GET", `/api/v1/statuses/${status.id}`);
  assert.equal(e.uri, doc.id);
  assert.equal(e.url, doc.url);
  assert.equal(e.created_at, doc.published);
  assert.equal(e.visibility, "public");
  assert.equal(e.language, "en");
  assert.equal(
    e.content,
    `<p><span class="h-card" translate="no"><a href="${bob.account.url}" class="u-url mention" rel="nofollow noopener" target="_blank">@<span>bob</span></a></span> ` +
      `a heron <a href="${remote.origin}/tags/Herons" class="mention hashtag" rel="nofollow noopener" target="_blank">#<span>Herons</span></a> :heron:</p>`,
  );
  const zedId = e.mentions[1]?.id;
  assert.deepEqual(e.mentions, [
    { id: bob.id, username: "bob", url: bob.account.url, acct: "bob" },
    { id: zedId, username: "zed", url: `${remote.origin}/@zed`, acct: `zed@${remote.domain}` },
  ]);
  assert.deepEqual(e.tags, [{ name: "herons", url: `${s.url}/tags/herons` }]);
  // The emoji image is our copy (emoji.fetch), never the peer's URL.
  assert.deepEqual(e.emojis.map((x: { shortcode: string; url: string }) => x.shortcode), ["heron"]);
  assert.match(e.emojis[0].url, new RegExp(`^${s.app.baseUrl}/system/emojis/[^/]+\\.png$`));
  assert.equal(e.favourites_count, 3, "the origin's count, larger than ours");
  assert.equal(e.reblogs_count, 0);
  assert.equal(e.account.id, w.author.id);
  const size = { width: 1200, height: 800, size: "1200x800", aspect: 1.5 };
  assert.deepEqual(e.media_attachments, [
    {
      id: e.media_attachments[0].id,
      type: "image",
      url: image,
      preview_url: image,
      remote_url: image,
      preview_remote_url: null,
      text_url: null,
      meta: { original: size, small: size, focus: { x: -0.2, y: 0.4 } },
      description: "A heron",
      blurhash: "UFF~ggxu00NG~qWBRjt7?bRjIUt7_3WBRjof",
    },
  ]);
  assert.match(e.media_attachments[0].id, /^\d+$/);
});

test("a direct Create through bob's personal inbox: notification, and only bob sees it", async (t) => {
  const w = await startWorld(t);
  const { s, remote, rita } = w;
  const bob = await s.user("bob");
  const carol = await s.user("carol");
  // Private mentions from accounts one does not follow are held back by default (the notification policy).
  await s.api(bob, "PATCH", "/api/v2/notifications/policy", { for_private_mentions: "accept" });
  const doc = noteDoc(rita, { to: [bob.account.uri], cc: [], tag: [mentionOf(w, bob)], content: "<p>psst</p>" });
  const create = { "@context": "https://www.w3.org/ns/activitystreams", id: `${doc.id}/activity`, type: "Create", actor: rita.id, to: doc.to, cc: doc.cc, object: doc };
  const res = await remote.post(`${s.url}/users/bob/inbox`, create, rita);
  assert.equal(res.status, 202);
  await s.drainJobs();
  const status = findStatusByUri(s.app.db, doc.id as string);
  assert.ok(status);
  const [n] = await s.api(bob, "GET", "/api/v1/notifications");
  assert.deepEqual([n.type, n.status.id, n.status.visibility, n.status.content], ["mention", status.id, "direct", "<p>psst</p>"]);
  assert.equal((await view(w, carol, status.id)).status, 404);
  assert.equal((await view(w, null, status.id)).status, 404);
});

test("visibility matrix: public, unlisted, private, direct, limited, and a tag that is not addressed", async (t) => {
  const w = await startWorld(t);
  const { s, rita } = w;
  const alice = await s.user("alice"); // follows rita
  const bob = await s.user("bob");
  const carol = await s.user("carol");
  followRemote(w, alice);
  // Private mentions from accounts one does not follow are held back by default (the notification policy).
  await s.api(bob, "PATCH", "/api/v2/notifications/policy", { for_private_mentions: "accept" });
  const make = (extra: Record<string, unknown>) => stored(w, noteDoc(rita, extra));
  const pub = await make({});
  const unlisted = await make({ to: [rita.followers], cc: [PUBLIC] });
  const priv = await make({ to: [rita.followers], cc: [] });
  const direct = await make({ to: [bob.account.uri], cc: [], tag: [mentionOf(w, bob)] });
  const limited = await make({ to: [carol.account.uri], cc: [] });
  const unaddressed = await make({ to: [rita.followers], cc: [], tag: [mentionOf(w, bob)] });
  await s.drainJobs();

  assert.deepEqual(
    [pub, unlisted, priv, direct, limited, unaddressed].map((x) => [x.visibility, x.limited]),
    [["public", false], ["unlisted", false], ["private", false], ["direct", false], ["direct", true], ["private", false]],
  );
  const seen = async (who: typeof alice | null, id: string) => {
    const r = await view(w, who, id);
    return r.status === 200 ? r.body.visibility : r.status;
  };
  assert.deepEqual(await Promise.all([pub, unlisted, priv, direct, limited].map((x) => seen(null, x.id))), ["public", "unlisted", 404, 404, 404]);
  assert.deepEqual(await Promise.all([pub, unlisted, priv, direct, limited].map((x) => seen(alice, x.id))), ["public", "unlisted", "private", 404, 404]);
  assert.equal(await seen(bob, direct.id), "direct");
  // Limited: addressed to carol without a Mention tag; shown to her as private, not as a mention.
  assert.equal(await seen(carol, limited.id), "private");
  assert.deepEqual((await view(w, carol, limited.id)).body.mentions, []);
  // A direct message starts a conversation; a limited post does not.
  const conversations = async (who: typeof alice) => (await s.api(who, "GET", "/api/v1/conversations")).map((c: any) => c.last_status.id);
  assert.deepEqual(await conversations(bob), [direct.id]);
  assert.deepEqual(await conversations(carol), []);
  // Tagged but not addressed: bob may see it, it does not list or notify him.
  assert.equal(await seen(bob, unaddressed.id), "private");
  assert.deepEqual((await view(w, bob, unaddressed.id)).body.mentions, []);

  const notified = async (who: typeof alice) => (await s.api(who, "GET", "/api/v1/notifications")).map((n: any) => [n.type, n.status.id]);
  assert.deepEqual(await notified(bob), [["mention", direct.id]]);
  assert.deepEqual(await notified(carol), []);
  // alice's home: what a follower gets (public, unlisted, private) and not the posts for others.
  const home = await s.api(alice, "GET", "/api/v1/timelines/home");
  assert.deepEqual(home.map((x: { id: string }) => x.id).sort(), [pub.id, unlisted.id, priv.id, unaddressed.id].sort());
});

test("acceptance filter for pushed posts; fetched posts are always accepted", async (t) => {
  const w = await startWorld(t);
  const { s, rita } = w;
  const alice = await s.user("alice");
  const bob = await s.user("bob");
  // Nobody here follows rita.
  assert.equal(await store(w, noteDoc(rita)), undefined, "public, no followers, no addressee");
  assert.equal(await store(w, noteDoc(rita, { to: [rita.followers], cc: [PUBLIC] })), undefined, "unlisted likewise");
  assert.equal(await store(w, noteDoc(rita, { to: [rita.followers], cc: [] })), undefined, "private without followers");
  assert.equal(await store(w, noteDoc(rita, { to: [`${w.remote.origin}/users/zed`], cc: [] })), undefined, "direct to a remote account");
  assert.ok(await store(w, noteDoc(rita), { fetched: true }), "fetched on purpose");
  assert.ok(await store(w, noteDoc(rita, { to: [rita.followers], cc: [bob.account.uri] })), "private addressed to bob");
  assert.ok(await store(w, noteDoc(rita, { tag: [mentionOf(w, bob)] })), "public mentioning bob");

  // A public reply to a local post is wanted, and counts on the parent.
  const local = await s.api(alice, "POST", "/api/v1/statuses", { status: "a local post" });
  const reply = await stored(w, noteDoc(rita, { inReplyTo: local.uri }));
  assert.equal(reply.inReplyToId, local.id);
  assert.equal(reply.inReplyToAccountId, alice.id);
  assert.equal((await s.api(alice, "GET", `/api/v1/statuses/${local.id}`)).replies_count, 1);

  // Delivered to a personal inbox: the owner may see it (silent mention), a direct post turns limited.
  const viaInbox = await stored(w, noteDoc(rita, { to: [`${w.remote.origin}/users/zed`], cc: [] }), { recipient: alice.account });
  assert.deepEqual([viaInbox.visibility, viaInbox.limited], ["direct", true]);
  assert.equal((await view(w, alice, viaInbox.id)).body.visibility, "private");

  // Once alice follows rita, rita's public posts are wanted.
  followRemote(w, alice);
  assert.ok(await store(w, noteDoc(rita)));
});

test("origin rules, duplicates and publication times", async (t) => {
  const w = await startWorld(t);
  const { s, remote, rita } = w;
  const alice = await s.user("alice");
  const carol = await s.user("carol");
  followRemote(w, alice);
  const mallory = await remoteAccountOf(s, remote.actor("mallory"));

  assert.equal(await store(w, noteDoc(rita, { id: "https://elsewhere.example/notes/1" })), undefined, "id on another host");
  assert.equal(await store(w, noteDoc(rita, { attributedTo: `${remote.origin}/users/mallory` })), undefined, "claims another author");
  const doc = noteDoc(rita, { to: [rita.followers], cc: [] });
  const first = await stored(w, doc);
  assert.equal(await store(w, doc, {}, mallory), undefined, "a known status of another author");
  // A repeat is the same status; through a personal inbox it lets that owner see it.
  assert.equal((await view(w, carol, first.id)).status, 404);
  const again = await stored(w, doc, { recipient: carol.account });
  assert.equal(again.id, first.id);
  assert.equal((await view(w, carol, first.id)).status, 200);
  const count = s.app.db.prepare("SELECT count(*) AS n FROM statuses WHERE uri = ?").get(doc.id) as { n: bigint };
  assert.equal(count.n, 1n);

  // A post dated in the future counts as posted now; one without `published` too.
  const before = Date.now();
  const future = await stored(w, noteDoc(rita, { published: "2999-01-01T00:00:00Z" }));
  const undated = await stored(w, noteDoc(rita, { published: undefined }));
  for (const st of [future, undated]) {
    assert.ok(st.createdAt >= before && st.createdAt <= Date.now(), "created now");
    assert.equal(idTime(st.id), st.createdAt);
  }
});

test("Delete removes the author's status and leaves a tombstone that blocks it coming back", async (t) => {
  const w = await startWorld(t);
  const { s, remote, rita } = w;
  const alice = await s.user("alice");
  followRemote(w, alice);
  const mallory = await remoteAccountOf(s, remote.actor("mallory"));
  const doc = noteDoc(rita);
  const status = await stored(w, doc);
  await s.drainJobs();

  deleteRemoteStatus(s.app, doc.id as string, mallory);
  assert.equal((await view(w, alice, status.id)).status, 200, "only the author may delete");
  deleteRemoteStatus(s.app, doc.id as string, w.author);
  await s.drainJobs();
  assert.equal((await view(w, alice, status.id)).status, 404);
  assert.deepEqual(await s.api(alice, "GET", "/api/v1/timelines/home"), []);
  assert.equal(hasTombstone(s.app.db, doc.id as string), true);
  assert.equal(await store(w, doc), undefined, "a replayed Create");
  assert.equal(await store(w, doc, { fetched: true }), undefined, "nor fetched again");

  // A Delete that overtakes its Create.
  const early = noteDoc(rita);
  deleteRemoteStatus(s.app, early.id as string, w.author);
  assert.equal(await store(w, early), undefined);
  // By web URL.
  const byUrl = noteDoc(rita);
  const st = await stored(w, byUrl);
  deleteRemoteStatus(s.app, byUrl.url as string, w.author);
  assert.equal((await view(w, alice, st.id)).status, 404);
  // Uris of other hosts get no tombstone from rita.
  deleteRemoteStatus(s.app, "https://elsewhere.example/notes/9", w.author);
  assert.equal(hasTombstone(s.app.db, "https://elsewhere.example/notes/9"), false);
});

test("media and emojis of a domain whose media are rejected are not stored", async (t) => {
  const w = await startWorld(t);
  const { s, remote, rita } = w;
  const alice = await s.user("alice");
  followRemote(w, alice);
  createDomainBlock(s.app, { domain: new URL(remote.origin).hostname, severity: "noop", rejectMedia: true });
  const status = await stored(
    w,
    noteDoc(rita, {
      content: "<p>look :heron:</p>",
      attachment: [{ type: "Document", mediaType: "image/png", url: `${remote.origin}/m.png` }],
      tag: [{ type: "Emoji", name: ":heron:", icon: { type: "Image", url: `${remote.origin}/heron.png` } }],
    }),
  );
  const e = await s.api(alice, "GET", `/api/v1/statuses/${status.id}`);
  assert.deepEqual([e.media_attachments, e.emojis, e.content], [[], [], "<p>look :heron:</p>"]);
});

test("a direct post naming another server's conversation does not join that conversation", async (t) => {
  const w = await startWorld(t);
  const alice = await w.s.user("alice");
  // Private mentions from accounts one does not follow are held back by default (the notification policy).
  await w.s.api(alice, "PATCH", "/api/v2/notifications/policy", { for_private_mentions: "accept" });
  const other = await startFakeRemote();
  t.after(() => other.close());
  const eveActor = other.actor("eve");
  const eve = await remoteAccountOf(w.s, eveActor);
  const context = `${w.remote.origin}/contexts/9`;
  const dm = (actor: FakeActor, extra: Doc) => noteDoc(actor, { to: [alice.account.uri], cc: [], tag: [mentionOf(w, alice)], context, ...extra });
  const first = await stored(w, dm(w.rita, { content: "<p>hi alice</p>" }));
  const intruder = await stored(w, dm(eveActor, { content: "<p>me too</p>" }), undefined, eve);
  const [a, b] = [first, intruder].map((s) => (w.s.app.db.prepare("SELECT conversation_id FROM statuses WHERE id = ?").get(BigInt(s.id)) as { conversation_id: bigint }).conversation_id);
  assert.notEqual(a, b, "eve's post opens its own conversation");
  await w.s.drainJobs();
  const convs = await w.s.api(alice, "GET", "/api/v1/conversations");
  assert.equal(convs.length, 2);
  for (const c of convs) assert.equal(c.accounts.length, 1, "one participant each");
});
