// Resolving remote accounts by uri and handle (AP §3.2, discovery.md §1.2): what is stored,
// refreshes, remote suspensions, domain policy, private addresses and local short-cuts.
import { test } from "node:test";
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { join } from "node:path";
import sharp from "sharp";
import { startTestServer } from "../helpers/server.ts";
import { startFakeRemote } from "../helpers/fake-remote.ts";
import { resolveAccountByHandle, resolveAccountByUri } from "../../src/federation/resolve/accounts.ts";
import { fetchApObject } from "../../src/federation/fetch-object.ts";
import { sanitizeRemoteHtml } from "../../src/federation/parse/html.ts";
import { FetchError } from "../../src/federation/net/safe-fetch.ts";
import { FederationError } from "../../src/federation/types.ts";
import { createDomainBlock } from "../../src/services/domain-blocks.ts";
import { findAccountByUri } from "../../src/storage/accounts.ts";
import { findEmojiByShortcode } from "../../src/storage/custom-emojis.ts";
import { setSuspension } from "../../src/storage/remote-accounts.ts";

const tinyPng = (r: number) =>
  sharp({ create: { width: 8, height: 8, channels: 4, background: { r, g: 10, b: 10, alpha: 1 } } }).png().toBuffer();

const BIO = '<p>Birds &amp; <a href="https://birds.example/">birds</a><script>alert(1)</script></p>';
const FIELD = '<a href="https://bob.example/" rel="me">bob.example</a><iframe src="x"></iframe>';

test("resolveAccountByUri stores every field of the actor, and its moved-to target without chains", async (t) => {
  const s = await startTestServer();
  const remote = await startFakeRemote();
  t.after(() => Promise.all([s.close(), remote.close()]));
  const o = remote.origin;
  const dave = remote.actor("dave");
  const carol = remote.actor("carol", { extra: { movedTo: dave.id } });
  const bob = remote.actor("bob", {
    type: "Service",
    locked: true,
    extra: {
      name: "Bob :blobcat:",
      summary: BIO,
      featured: `${o}/users/bob/collections/featured`,
      featuredTags: `${o}/users/bob/collections/tags`,
      discoverable: true,
      indexable: true,
      memorial: true,
      published: "2024-02-03T00:00:00Z",
      icon: { type: "Image", mediaType: "image/png", url: `${o}/media/bob.png` },
      image: [{ type: "Image", url: { type: "Link", href: `${o}/media/bob-header.jpg` } }],
      attachment: [
        { type: "PropertyValue", name: "Website", value: FIELD },
        { type: "IdentityProof", name: "ignored", signatureValue: "x" },
        { type: "PropertyValue", name: "Pronouns", value: "he/him" },
      ],
      tag: [
        { type: "Emoji", id: `${o}/emojis/1`, name: ":blobcat:", updated: "2024-01-01T00:00:00Z", icon: { type: "Image", url: `${o}/emoji/blobcat.png` } },
        { type: "Hashtag", name: "#birds", href: `${o}/tags/birds` },
      ],
      alsoKnownAs: [`${o}/users/oldbob`],
      movedTo: carol.id,
    },
  });

  remote.serveFile("/emoji/blobcat.png", await tinyPng(200), "image/png");

  const before = s.app.now();
  const a = await resolveAccountByUri(s.app, bob.id);
  assert.ok(a);
  assert.equal(a.username, "bob");
  assert.equal(a.domain, remote.domain);
  assert.equal(a.displayName, "Bob :blobcat:");
  assert.equal(a.note, sanitizeRemoteHtml(BIO));
  assert.ok(!a.note.includes("script"));
  assert.deepEqual(a.fields, [
    { name: "Website", value: sanitizeRemoteHtml(FIELD), verified_at: null },
    { name: "Pronouns", value: "he/him", verified_at: null },
  ]);
  assert.ok(!a.fields[0].value.includes("iframe"));
  assert.equal(a.actorType, "Service");
  assert.equal(a.locked, true);
  assert.equal(a.discoverable, true);
  assert.equal(a.indexable, true);
  assert.equal(a.memorial, true);
  assert.equal(a.uri, bob.id);
  assert.equal(a.url, `${o}/@bob`);
  assert.equal(a.inboxUrl, `${o}/users/bob/inbox`);
  assert.equal(a.sharedInboxUrl, `${o}/inbox`);
  assert.equal(a.outboxUrl, `${o}/users/bob/outbox`);
  assert.equal(a.followersUrl, `${o}/users/bob/followers`);
  assert.equal(a.followingUrl, `${o}/users/bob/following`);
  assert.equal(a.featuredUrl, `${o}/users/bob/collections/featured`);
  assert.equal(a.featuredTagsUrl, `${o}/users/bob/collections/tags`);
  assert.equal(a.publicKeyId, `${o}/users/bob#main-key`);
  assert.equal(a.publicKeyPem, bob.publicKeyPem);
  assert.equal(a.privateKeyPem, null);
  assert.equal(a.avatarRemoteUrl, `${o}/media/bob.png`);
  assert.equal(a.headerRemoteUrl, `${o}/media/bob-header.jpg`);
  assert.equal(a.avatarFile, null);
  assert.deepEqual(a.alsoKnownAs, [`${o}/users/oldbob`]);
  assert.equal(a.createdAt, Date.parse("2024-02-03T00:00:00Z"));
  assert.equal(a.suspendedAt, null);
  assert.equal(a.silencedAt, null);
  assert.ok(a.fetchedAt! >= before && a.lastWebfingeredAt! >= before);

  // movedTo is resolved, but the target's own movedTo is not followed further.
  const c = findAccountByUri(s.app.db, carol.id);
  assert.ok(c);
  assert.equal(a.movedToAccountId, c.id);
  assert.equal(c.movedToAccountId, null);
  assert.equal(findAccountByUri(s.app.db, dave.id), undefined);
  assert.ok(!remote.requests.some((r) => r.path === "/users/dave"));
  // Every actor fetch was signed (by the instance actor).
  assert.ok(remote.requests.filter((r) => r.path.startsWith("/users/")).every((r) => r.signed));

  const emoji = findEmojiByShortcode(s.app.db, "blobcat", remote.domain);
  assert.ok(emoji);
  assert.equal(emoji.remoteUrl, `${o}/emoji/blobcat.png`);
  assert.equal(emoji.uri, `${o}/emojis/1`);
  // The image is copied by a job; until then the emoji is not shown (clients never hot-link).
  assert.equal(emoji.file, null);
  const viewer = await s.user("alice");
  assert.deepEqual((await s.api(viewer, "GET", `/api/v1/accounts/${a.id}`)).emojis, []);
  await s.drainJobs();
  const copied = findEmojiByShortcode(s.app.db, "blobcat", remote.domain)!;
  assert.match(copied.file ?? "", /^emojis\/.+\.png$/);

  // The API shows it as Mastodon would, from our copy.
  const api = await s.api(viewer, "GET", `/api/v1/accounts/${a.id}`);
  assert.equal(api.acct, `bob@${remote.domain}`);
  assert.equal(api.bot, true);
  assert.equal(api.avatar, `${o}/media/bob.png`);
  assert.equal(api.moved.id, c.id);
  const local = `${s.app.baseUrl}/system/${copied.file}`;
  assert.deepEqual(api.emojis, [{ shortcode: "blobcat", url: local, static_url: local.replace(/\.png$/, "_static.png"), visible_in_picker: false }]);
});

test("a known account is not refetched unless refresh; refresh applies changes and new emoji images", async (t) => {
  const s = await startTestServer();
  const remote = await startFakeRemote();
  t.after(() => Promise.all([s.close(), remote.close()]));
  const emoji = (url: string, updated: string) => [{ type: "Emoji", name: ":wave:", updated, icon: { type: "Image", url } }];
  const bob = remote.actor("bob", { extra: { name: "Bob :wave:", tag: emoji(`${remote.origin}/e/1.png`, "2024-01-01T00:00:00Z") } });
  remote.serveFile("/e/1.png", await tinyPng(10), "image/png");
  remote.serveFile("/e/2.png", await tinyPng(250), "image/png");
  const first = await resolveAccountByUri(s.app, bob.id);
  assert.ok(first);
  await s.drainJobs();
  const firstCopy = findEmojiByShortcode(s.app.db, "wave", remote.domain)!.file!;
  assert.ok(existsSync(join(s.app.mediaDir, firstCopy)));
  const fetches = () => remote.requests.filter((r) => r.path === "/users/bob").length;
  assert.equal(fetches(), 1);

  bob.doc.name = "Robert :wave:";
  bob.doc.tag = emoji(`${remote.origin}/e/2.png`, "2024-06-01T00:00:00Z");
  bob.doc.manuallyApprovesFollowers = true;
  const same = await resolveAccountByUri(s.app, bob.id);
  assert.equal(same?.displayName, "Bob :wave:");
  assert.equal(fetches(), 1);

  const refreshed = await resolveAccountByUri(s.app, bob.id, { refresh: true });
  assert.equal(refreshed?.id, first.id);
  assert.equal(refreshed?.displayName, "Robert :wave:");
  assert.equal(refreshed?.locked, true);
  assert.equal(fetches(), 2);
  assert.equal(findEmojiByShortcode(s.app.db, "wave", remote.domain)?.remoteUrl, `${remote.origin}/e/2.png`);
  // The new image replaces our copy of the old one.
  await s.drainJobs();
  const secondCopy = findEmojiByShortcode(s.app.db, "wave", remote.domain)!.file!;
  assert.notEqual(secondCopy, firstCopy);
  assert.ok(existsSync(join(s.app.mediaDir, secondCopy)));
  assert.equal(existsSync(join(s.app.mediaDir, firstCopy)), false);
  // The handle was verified a moment ago: the refresh did not ask WebFinger again.
  assert.equal(remote.requests.filter((r) => r.path.startsWith("/.well-known/webfinger")).length, 1);
});

test("an actor's own suspension is mirrored and lifted with it; ours is never lifted by a fetch", async (t) => {
  const s = await startTestServer();
  const remote = await startFakeRemote();
  t.after(() => Promise.all([s.close(), remote.close()]));
  const bob = remote.actor("bob", { extra: { suspended: true } });
  const a = await resolveAccountByUri(s.app, bob.id);
  assert.ok(a?.suspendedAt);

  delete bob.doc.suspended;
  const lifted = await resolveAccountByUri(s.app, bob.id, { refresh: true });
  assert.equal(lifted?.suspendedAt, null);

  // A suspension by our moderators (no remote origin) survives any refresh.
  setSuspension(s.app.db, a.id, 1234, null);
  const kept = await resolveAccountByUri(s.app, bob.id, { refresh: true });
  assert.equal(kept?.suspendedAt, 1234);
});

test("a new account on a silenced domain is stored silenced", async (t) => {
  const s = await startTestServer();
  const remote = await startFakeRemote();
  t.after(() => Promise.all([s.close(), remote.close()]));
  createDomainBlock(s.app, { domain: "127.0.0.1", severity: "silence" });
  const bob = remote.actor("bob");
  const a = await resolveAccountByUri(s.app, bob.id);
  assert.ok(a?.silencedAt);
});

test("nothing is fetched from a suspended domain", async (t) => {
  const s = await startTestServer();
  const remote = await startFakeRemote();
  t.after(() => Promise.all([s.close(), remote.close()]));
  createDomainBlock(s.app, { domain: "127.0.0.1", severity: "suspend" });
  const bob = remote.actor("bob");
  assert.equal(await resolveAccountByUri(s.app, bob.id), undefined);
  assert.equal(await resolveAccountByHandle(s.app, "bob", remote.domain), undefined);
  await assert.rejects(fetchApObject(s.app, bob.id), (e: unknown) => e instanceof FederationError && e.permanent);
  assert.equal(remote.requests.length, 0);
});

test("private addresses are refused when allowPrivateAddresses is off", async (t) => {
  const s = await startTestServer({ config: { allowPrivateAddresses: false } });
  const remote = await startFakeRemote();
  t.after(() => Promise.all([s.close(), remote.close()]));
  const bob = remote.actor("bob");
  await assert.rejects(fetchApObject(s.app, bob.id), (e: unknown) => e instanceof FetchError && e.kind === "private-address");
  await assert.rejects(resolveAccountByHandle(s.app, "bob", remote.domain), (e: unknown) => e instanceof FetchError && e.kind === "private-address");
  assert.equal(remote.requests.length, 0);
});

test("resolveAccountByHandle: WebFinger then the actor; a known fresh handle costs no request", async (t) => {
  const s = await startTestServer();
  const remote = await startFakeRemote();
  t.after(() => Promise.all([s.close(), remote.close()]));
  const bob = remote.actor("Bob");
  const a = await resolveAccountByHandle(s.app, "bob", remote.domain.toUpperCase());
  assert.equal(a?.uri, bob.id);
  assert.equal(a?.username, "Bob");
  const n = remote.requests.length;
  assert.equal((await resolveAccountByHandle(s.app, "BOB", remote.domain))?.id, a?.id);
  assert.equal(remote.requests.length, n);
  assert.equal(await resolveAccountByHandle(s.app, "nobody", remote.domain), undefined);
});

test("local uris and handles resolve to local accounts without any request", async (t) => {
  const s = await startTestServer();
  t.after(() => s.close());
  const alice = await s.user("alice");
  assert.equal((await resolveAccountByUri(s.app, alice.account.uri))?.id, alice.id);
  assert.equal((await resolveAccountByUri(s.app, `${s.url}/@alice`))?.id, alice.id);
  assert.equal((await resolveAccountByHandle(s.app, "alice", s.app.config.domain))?.id, alice.id);
  assert.equal((await resolveAccountByHandle(s.app, "ALICE", null))?.id, alice.id);
  assert.equal(await resolveAccountByUri(s.app, `${s.url}/users/nobody`), undefined);
});

test("a remote account's counts come from its collections' totalItems; a collection without pages is hidden", async (t) => {
  const s = await startTestServer();
  const remote = await startFakeRemote();
  t.after(() => Promise.all([s.close(), remote.close()]));
  const alice = await s.user("alice");
  const bob = remote.actor("bob");
  const coll = (id: string, totalItems: number, paged: boolean) => ({
    "@context": "https://www.w3.org/ns/activitystreams",
    id,
    type: "OrderedCollection",
    totalItems,
    ...(paged ? { first: `${id}?page=1` } : {}),
  });
  remote.serve("/users/bob/outbox", coll(`${bob.id}/outbox`, 42, true));
  remote.serve("/users/bob/followers", coll(`${bob.id}/followers`, 7, true));
  remote.serve("/users/bob/following", coll(`${bob.id}/following`, 3, false));

  const account = await resolveAccountByUri(s.app, bob.id);
  assert.ok(account);
  await s.drainJobs();
  const shown = await s.api(alice, "GET", `/api/v1/accounts/${account.id}`);
  assert.deepEqual(
    { statuses: shown.statuses_count, followers: shown.followers_count, following: shown.following_count, hidden: shown.hide_collections },
    { statuses: 42, followers: 7, following: 3, hidden: true },
  );
  const fetched = remote.requests.filter((r) => /\/(outbox|followers|following)$/.test(r.path));
  assert.equal(fetched.length, 3);
  assert.ok(fetched.every((r) => r.signed), "collection fetches are signed");
});
