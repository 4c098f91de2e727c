import { test } from "node:test";
import assert from "node:assert/strict";
import sharp from "sharp";
import { startTestServer } from "../helpers/server.ts";
import { createCustomEmoji } from "../../src/services/custom-emojis.ts";
import { instanceActorKeys } from "../../src/federation/instance-actor.ts";
import { toApActor } from "../../src/federation/serializers/actor.ts";
import { AP_TYPE, apGet, VARY } from "./ap-test-helpers.ts";

// Actor documents (AP §3) over real HTTP: a local Person/Service and the instance actor.

const ACTOR_CONTEXT = [
  "https://www.w3.org/ns/activitystreams",
  "https://w3id.org/security/v1",
  "https://purl.archive.org/socialweb/webfinger",
  {
    manuallyApprovesFollowers: "as:manuallyApprovesFollowers",
    toot: "http://joinmastodon.org/ns#",
    featured: { "@id": "toot:featured", "@type": "@id" },
    featuredTags: { "@id": "toot:featuredTags", "@type": "@id" },
    alsoKnownAs: { "@id": "as:alsoKnownAs", "@type": "@id" },
    movedTo: { "@id": "as:movedTo", "@type": "@id" },
    schema: "http://schema.org#",
    PropertyValue: "schema:PropertyValue",
    value: "schema:value",
    discoverable: "toot:discoverable",
    suspended: "toot:suspended",
    memorial: "toot:memorial",
    indexable: "toot:indexable",
    attributionDomains: { "@id": "toot:attributionDomains", "@container": "@set" },
    Hashtag: "as:Hashtag",
    Emoji: "toot:Emoji",
    focalPoint: { "@container": "@list", "@id": "toot:focalPoint" },
  },
];

const png = (size: number) =>
  sharp({ create: { width: size, height: size, channels: 4, background: { r: 20, g: 120, b: 200, alpha: 1 } } }).png().toBuffer();

test("a bot's actor: every field of AP §3.1 with profile fields, emoji, avatar and locked", async (t) => {
  const s = await startTestServer();
  t.after(() => s.close());
  const base = s.app.baseUrl;
  const domain = s.app.config.domain;
  const emoji = await createCustomEmoji(s.app, { shortcode: "heron", data: await png(16), contentType: "image/png" });
  const alice = await s.user("alice");
  const form = new FormData();
  form.append("display_name", "Alice :heron:");
  form.append("note", "Watches birds. #birds");
  form.append("bot", "true");
  form.append("locked", "true");
  form.append("discoverable", "true");
  form.append("indexable", "true");
  form.append("fields_attributes[0][name]", "Website");
  form.append("fields_attributes[0][value]", "https://alice.example/");
  form.append("fields_attributes[1][name]", "Pronouns");
  form.append("fields_attributes[1][value]", "she/her");
  form.append("avatar", new Blob([await png(64)], { type: "image/png" }), "me.png");
  const rest = await s.api(alice, "PATCH", "/api/v1/accounts/update_credentials", form);

  const res = await apGet(s, "/users/alice");
  assert.equal(res.status, 200);
  assert.equal(res.headers.get("content-type"), AP_TYPE);
  assert.equal(res.headers.get("vary"), VARY);
  assert.equal(res.headers.get("cache-control"), "public, max-age=180");
  const doc = res.body;
  const uri = `${base}/users/alice`;
  assert.deepEqual(doc["@context"], ACTOR_CONTEXT);
  assert.equal(doc.id, uri);
  assert.equal(doc.type, "Service", "bots are Services");
  assert.equal(doc.webfinger, `alice@${domain}`);
  assert.equal(doc.following, `${uri}/following`);
  assert.equal(doc.followers, `${uri}/followers`);
  assert.equal(doc.inbox, `${uri}/inbox`);
  assert.equal(doc.outbox, `${uri}/outbox`);
  assert.equal(doc.featured, `${uri}/collections/featured`);
  assert.equal(doc.featuredTags, `${uri}/collections/tags`);
  assert.equal(doc.preferredUsername, "alice");
  assert.equal(doc.name, "Alice :heron:");
  assert.equal(doc.summary, rest.note);
  assert.match(doc.summary, /<a href="[^"]+\/tags\/birds"/);
  assert.equal(doc.url, `${base}/@alice`);
  assert.equal(doc.manuallyApprovesFollowers, true);
  assert.equal(doc.discoverable, true);
  assert.equal(doc.indexable, true);
  assert.equal(doc.memorial, false);
  assert.match(doc.published, /^\d{4}-\d\d-\d\dT00:00:00Z$/, "creation day at midnight UTC");
  assert.equal(doc.published.slice(0, 10), rest.created_at.slice(0, 10));
  assert.deepEqual(Object.keys(doc.publicKey), ["id", "owner", "publicKeyPem"]);
  assert.equal(doc.publicKey.id, `${uri}#main-key`);
  assert.equal(doc.publicKey.owner, uri);
  assert.equal(doc.publicKey.publicKeyPem, alice.account.publicKeyPem);
  assert.match(doc.publicKey.publicKeyPem, /^-----BEGIN PUBLIC KEY-----\n/);
  assert.deepEqual(doc.endpoints, { sharedInbox: `${base}/inbox` });
  assert.deepEqual(doc.tag, [
    {
      id: `${base}/emojis/${emoji.id}`,
      type: "Emoji",
      name: ":heron:",
      updated: new Date(emoji.updatedAt).toISOString().replace(/\.\d{3}Z$/, "Z"),
      icon: { type: "Image", mediaType: "image/png", url: `${base}/system/${emoji.file}` },
    },
    { type: "Hashtag", href: `${base}/tags/birds`, name: "#birds" },
  ]);
  assert.deepEqual(doc.attachment, [
    { type: "PropertyValue", name: "Website", value: rest.fields[0].value },
    { type: "PropertyValue", name: "Pronouns", value: "she/her" },
  ]);
  assert.match(doc.attachment[0].value, /^<a href="https:\/\/alice\.example\/"[^>]* rel="nofollow noopener me"/);
  assert.deepEqual(doc.icon, { type: "Image", mediaType: "image/png", url: rest.avatar });
  assert.ok(doc.icon.url.startsWith(`${base}/system/`), "absolute media URL");
  assert.equal("image" in doc, false, "no header set: no image");
  for (const absent of ["suspended", "movedTo", "alsoKnownAs"]) assert.equal(absent in doc, false, absent);

  // The emoji id dereferences to the same Emoji object.
  const e = await apGet(s, `/emojis/${emoji.id}`);
  assert.equal(e.status, 200);
  assert.equal(e.headers.get("content-type"), AP_TYPE);
  assert.equal(e.body["@context"][0], "https://www.w3.org/ns/activitystreams");
  assert.deepEqual({ ...e.body, "@context": undefined }, { ...doc.tag[0], "@context": undefined });
  assert.equal((await apGet(s, "/emojis/999999")).status, 404);
});

test("a plain account is a Person; unknown, unconfirmed and unapproved users are 404", async (t) => {
  const s = await startTestServer();
  t.after(() => s.close());
  await s.user("bob");
  await s.user("carol", { confirmed: false });
  await s.user("dave", { approved: false });
  const bob = (await apGet(s, "/users/bob")).body;
  assert.equal(bob.type, "Person");
  assert.equal(bob.name, "bob", "the display name falls back to the username");
  assert.equal(bob.summary, "");
  assert.equal(bob.manuallyApprovesFollowers, false);
  assert.equal(bob.discoverable, false, "unset discoverable is false");
  assert.equal(bob.indexable, false);
  assert.deepEqual(bob.tag, []);
  assert.deepEqual(bob.attachment, []);
  assert.equal("icon" in bob, false);
  assert.equal("image" in bob, false);

  for (const path of ["/users/nobody", "/users/carol", "/users/dave", "/@carol", "/users/%00", "/users/" + "x".repeat(300)]) {
    const r = await apGet(s, path);
    assert.equal(r.status, 404, path);
    assert.deepEqual(r.body, { error: "Record not found" }, path);
  }
});

test("suspended accounts are the minimal document; moved accounts name their new actor", async (t) => {
  const s = await startTestServer();
  t.after(() => s.close());
  const alice = await s.user("alice", { displayName: "Alice" });
  const bob = await s.user("bob");
  const base = s.app.baseUrl;

  // No service suspends or moves accounts yet: the serializer is given the changed row.
  const suspended = toApActor(s.app, {
    ...alice.account,
    suspendedAt: Date.now(),
    locked: true,
    discoverable: true,
    note: "<p>bio</p>",
    fields: [{ name: "a", value: "b", verified_at: null }],
  });
  assert.equal(suspended.suspended, true);
  assert.equal(suspended.name, "alice", "name = username");
  assert.equal(suspended.summary, "");
  assert.equal(suspended.manuallyApprovesFollowers, false);
  assert.equal(suspended.discoverable, false);
  assert.deepEqual(suspended.attachment, []);
  assert.deepEqual(suspended.tag, []);
  assert.equal((suspended.publicKey as { owner: string }).owner, `${base}/users/alice`, "keys stay: its Deletes must verify");
  assert.equal(suspended.inbox, `${base}/users/alice/inbox`);

  const moved = toApActor(s.app, { ...alice.account, movedToAccountId: bob.id, alsoKnownAs: ["https://old.example/users/alice"] });
  assert.equal(moved.movedTo, `${base}/users/bob`);
  assert.deepEqual(moved.alsoKnownAs, ["https://old.example/users/alice"]);
});

test("the instance actor: an Application with the instance keys, served without a signature", async (t) => {
  const s = await startTestServer();
  t.after(() => s.close());
  const base = s.app.baseUrl;
  const res = await apGet(s, "/actor");
  assert.equal(res.status, 200);
  assert.equal(res.headers.get("content-type"), AP_TYPE);
  assert.equal(res.headers.get("cache-control"), "public, max-age=600");
  const { "@context": context, ...doc } = res.body;
  assert.deepEqual(context, ACTOR_CONTEXT);
  assert.deepEqual(doc, {
    id: `${base}/actor`,
    type: "Application",
    preferredUsername: s.app.config.domain,
    inbox: `${base}/actor/inbox`,
    outbox: `${base}/actor/outbox`,
    url: `${base}/about/more?instance_actor=true`,
    manuallyApprovesFollowers: true,
    publicKey: { id: `${base}/actor#main-key`, owner: `${base}/actor`, publicKeyPem: instanceActorKeys(s.app).publicKeyPem },
    endpoints: { sharedInbox: `${base}/inbox` },
  });
  const outbox = await apGet(s, "/actor/outbox");
  assert.equal(outbox.status, 200);
  assert.equal(outbox.body.type, "OrderedCollection");
  assert.equal(outbox.body.totalItems, 0);
  assert.deepEqual(outbox.body.orderedItems, []);
});
