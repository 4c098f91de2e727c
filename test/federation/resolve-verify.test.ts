// The handle loop-back check of discovery.md §1.2 step 4, and key-id resolution (AP §10.2,
// §16 GoToSocial key URLs).
import { test } from "node:test";
import assert from "node:assert/strict";
import { startTestServer } from "../helpers/server.ts";
import { freshKey, startFakeRemote } from "../helpers/fake-remote.ts";
import { resolveAccountByHandle, resolveAccountByKeyId, resolveAccountByUri } from "../../src/federation/resolve/accounts.ts";
import { clearWebfingerCache } from "../../src/federation/resolve/webfinger-client.ts";
import { createDomainBlock } from "../../src/services/domain-blocks.ts";
import { findAccountByUri } from "../../src/storage/accounts.ts";
import { AS, actorDoc, jrd, startStubPeer, type StubPeer } from "./resolve-helpers.ts";

/** WebFinger answers by handle (`user@domain` → answer); anything else 404. */
function webfingerTable(peer: StubPeer, table: Record<string, ReturnType<typeof jrd>>): void {
  peer.route("/.well-known/webfinger", (u) => table[u.searchParams.get("resource")!.replace(/^acct:/, "")] ?? { status: 404 });
}

test("an actor whose WebFinger self is another actor is refused and not stored", async (t) => {
  const s = await startTestServer();
  const peer = await startStubPeer();
  t.after(() => Promise.all([s.close(), peer.close()]));
  const bob = `${peer.origin}/users/bob`;
  peer.route("/users/bob", { body: actorDoc(bob, "bob") });
  webfingerTable(peer, { [`bob@${peer.domain}`]: jrd(`acct:bob@${peer.domain}`, `${peer.origin}/users/mallory`) });
  assert.equal(await resolveAccountByUri(s.app, bob), undefined);
  assert.equal(findAccountByUri(s.app.db, bob), undefined);
});

test("a handle pointing at somebody else's actor binds that actor under its own verified handle", async (t) => {
  const s = await startTestServer();
  const evil = await startStubPeer();
  const home = await startStubPeer();
  t.after(() => Promise.all([s.close(), evil.close(), home.close()]));
  const victim = `${home.origin}/users/victim`;
  home.route("/users/victim", { body: actorDoc(victim, "victim") });
  webfingerTable(home, { [`victim@${home.domain}`]: jrd(`acct:victim@${home.domain}`, victim) });
  webfingerTable(evil, { [`bob@${evil.domain}`]: jrd(`acct:bob@${evil.domain}`, victim) });
  const a = await resolveAccountByHandle(s.app, "bob", evil.domain);
  assert.equal(a?.uri, victim);
  assert.equal(a?.username, "victim");
  assert.equal(a?.domain, home.domain);
});

test("split domain: the actor's host redirects to the canonical handle, asked once more", async (t) => {
  const s = await startTestServer();
  const handleHost = await startStubPeer();
  const apHost = await startStubPeer();
  t.after(() => Promise.all([s.close(), handleHost.close(), apHost.close()]));
  const bob = `${apHost.origin}/users/bob`;
  apHost.route("/users/bob", { body: actorDoc(bob, "bob") });
  webfingerTable(apHost, { [`bob@${apHost.domain}`]: jrd(`acct:bob@${handleHost.domain}`, bob) });
  webfingerTable(handleHost, { [`bob@${handleHost.domain}`]: jrd(`acct:bob@${handleHost.domain}`, bob) });

  const a = await resolveAccountByHandle(s.app, "bob", handleHost.domain);
  assert.equal(a?.uri, bob);
  assert.equal(a?.username, "bob");
  assert.equal(a?.domain, handleHost.domain);
  assert.ok(a?.lastWebfingeredAt);

  // By uri from scratch: the same binding (actor host → canonical subject → confirmed).
  const s2 = await startTestServer();
  t.after(() => s2.close());
  const b = await resolveAccountByUri(s2.app, bob);
  assert.equal(b?.domain, handleHost.domain);
});

test("split domain: a canonical handle that names another actor is refused", async (t) => {
  const s = await startTestServer();
  const handleHost = await startStubPeer();
  const apHost = await startStubPeer();
  t.after(() => Promise.all([s.close(), handleHost.close(), apHost.close()]));
  const bob = `${apHost.origin}/users/bob`;
  apHost.route("/users/bob", { body: actorDoc(bob, "bob") });
  webfingerTable(apHost, { [`bob@${apHost.domain}`]: jrd(`acct:bob@${handleHost.domain}`, bob) });
  webfingerTable(handleHost, { [`bob@${handleHost.domain}`]: jrd(`acct:bob@${handleHost.domain}`, `${apHost.origin}/users/robert`) });
  assert.equal(await resolveAccountByUri(s.app, bob), undefined);
  assert.equal(findAccountByUri(s.app.db, bob), undefined);
});

test("FEP-2c59: the actor's webfinger property names the handle to verify", async (t) => {
  const s = await startTestServer();
  const handleHost = await startStubPeer();
  const apHost = await startStubPeer();
  t.after(() => Promise.all([s.close(), handleHost.close(), apHost.close()]));
  const bob = `${apHost.origin}/ap/users/17`;
  apHost.route("/ap/users/17", { body: actorDoc(bob, "bob", { webfinger: `bob@${handleHost.domain}` }) });
  webfingerTable(handleHost, { [`bob@${handleHost.domain}`]: jrd(`acct:bob@${handleHost.domain}`, bob) });
  const a = await resolveAccountByUri(s.app, bob);
  assert.equal(a?.domain, handleHost.domain);
  assert.ok(!apHost.requests.some((r) => r.path.startsWith("/.well-known/")));
});

test("an actor without a usable username is not created", async (t) => {
  const s = await startTestServer();
  const peer = await startStubPeer();
  t.after(() => Promise.all([s.close(), peer.close()]));
  const x = `${peer.origin}/users/x`;
  peer.route("/users/x", { body: actorDoc(x, "bad name") });
  webfingerTable(peer, { [`bad name@${peer.domain}`]: jrd(`acct:bad name@${peer.domain}`, x) });
  assert.equal(await resolveAccountByUri(s.app, x), undefined);
});

test("key ids: a Mastodon #main-key resolves through the actor, then from storage", async (t) => {
  const s = await startTestServer();
  const remote = await startFakeRemote();
  t.after(() => Promise.all([s.close(), remote.close()]));
  const bob = remote.actor("bob");
  const r = await resolveAccountByKeyId(s.app, bob.keyId);
  assert.equal(r?.account.uri, bob.id);
  assert.equal(r?.publicKeyPem, bob.publicKeyPem);
  const n = remote.requests.length;
  assert.equal((await resolveAccountByKeyId(s.app, bob.keyId))?.account.id, r?.account.id);
  assert.equal(remote.requests.length, n);
});

test("key ids: GoToSocial's …/main-key serves a stub actor (with the actor's id or its own)", async (t) => {
  const s = await startTestServer();
  const remote = await startFakeRemote();
  t.after(() => Promise.all([s.close(), remote.close()]));
  for (const [name, stubId] of [
    ["gts1", (id: string) => id],
    ["gts2", (id: string) => `${id}/main-key`],
  ] as const) {
    const id = `${remote.origin}/users/${name}`;
    const keyId = `${id}/main-key`;
    const actor = remote.actor(name);
    actor.doc.publicKey = { id: keyId, owner: id, publicKeyPem: actor.publicKeyPem };
    remote.serve(`/users/${name}/main-key`, {
      "@context": [AS, "https://w3id.org/security/v1"],
      id: stubId(id),
      type: "Person",
      preferredUsername: name,
      publicKey: { id: keyId, owner: id, publicKeyPem: actor.publicKeyPem },
    });
    const r = await resolveAccountByKeyId(s.app, keyId);
    assert.equal(r?.account.uri, id, name);
    assert.equal(r?.publicKeyPem, actor.publicKeyPem, name);
    assert.equal(r?.account.publicKeyId, keyId, name);
  }
});

test("key ids: a key document counts only when its owner lists it", async (t) => {
  const s = await startTestServer();
  const remote = await startFakeRemote();
  t.after(() => Promise.all([s.close(), remote.close()]));
  const o = remote.origin;
  const carol = remote.actor("carol");
  carol.doc.publicKey = [`${o}/keys/carol-1`];
  const keyDoc = (id: string, owner: string) => ({ "@context": [AS, "https://w3id.org/security/v1"], id, owner, publicKeyPem: carol.publicKeyPem });
  remote.serve("/keys/carol-1", keyDoc(`${o}/keys/carol-1`, carol.id));
  remote.serve("/keys/stolen", keyDoc(`${o}/keys/stolen`, carol.id));
  const r = await resolveAccountByKeyId(s.app, `${o}/keys/carol-1`);
  assert.equal(r?.account.uri, carol.id);
  assert.equal(r?.publicKeyPem, carol.publicKeyPem);
  assert.equal(await resolveAccountByKeyId(s.app, `${o}/keys/stolen`), undefined);
  assert.equal(await resolveAccountByKeyId(s.app, `${o}/keys/missing`), undefined);
});

test("key ids: refresh picks up a rotated key; suspended domains are never asked", async (t) => {
  const s = await startTestServer();
  const remote = await startFakeRemote();
  t.after(() => Promise.all([s.close(), remote.close()]));
  const bob = remote.actor("bob");
  await resolveAccountByKeyId(s.app, bob.keyId);
  const rotated = freshKey();
  bob.doc.publicKey = { id: bob.keyId, owner: bob.id, publicKeyPem: rotated.publicKeyPem };
  assert.equal((await resolveAccountByKeyId(s.app, bob.keyId))?.publicKeyPem, bob.publicKeyPem);
  const r = await resolveAccountByKeyId(s.app, bob.keyId, { refresh: true });
  assert.equal(r?.publicKeyPem, rotated.publicKeyPem);
  assert.equal(findAccountByUri(s.app.db, bob.id)?.publicKeyPem, rotated.publicKeyPem);

  const dave = remote.actor("dave");
  createDomainBlock(s.app, { domain: "127.0.0.1", severity: "suspend" });
  const n = remote.requests.length;
  assert.equal(await resolveAccountByKeyId(s.app, dave.keyId), undefined);
  assert.equal(remote.requests.length, n);
});

test("key ids: an actor whose handle does not verify still signs (stored unverified, not found by handle)", async (t) => {
  const s = await startTestServer();
  const remote = await startFakeRemote();
  t.after(() => Promise.all([s.close(), remote.close()]));
  // Served as a document, not as a fake-remote actor: its WebFinger answers 404.
  const relay = remote.actor("relay");
  remote.serve("/actors/relay", { ...relay.doc, id: `${remote.origin}/actors/relay`, publicKey: { id: `${remote.origin}/actors/relay#main-key`, owner: `${remote.origin}/actors/relay`, publicKeyPem: relay.publicKeyPem }, preferredUsername: "internal.fetch" });
  const r = await resolveAccountByKeyId(s.app, `${remote.origin}/actors/relay#main-key`);
  assert.equal(r?.account.uri, `${remote.origin}/actors/relay`);
  assert.equal(r?.account.username, "internal.fetch");
  assert.equal(r?.account.domain, remote.domain);
  assert.equal(r?.account.lastWebfingeredAt, null);
  assert.equal(r?.publicKeyPem, relay.publicKeyPem);
  // Nobody finds it by handle until the handle verifies.
  assert.equal(await resolveAccountByHandle(s.app, "internal.fetch", remote.domain), undefined);
  // Nor does it take a handle that a verified account holds.
  const bob = remote.actor("bob");
  assert.ok(await resolveAccountByUri(s.app, bob.id));
  remote.serve("/actors/fakebob", { ...bob.doc, id: `${remote.origin}/actors/fakebob`, publicKey: { id: `${remote.origin}/actors/fakebob#k`, owner: `${remote.origin}/actors/fakebob`, publicKeyPem: bob.publicKeyPem } });
  assert.equal(await resolveAccountByKeyId(s.app, `${remote.origin}/actors/fakebob#k`), undefined);
});

test("a handle that now verifies for a new actor moves to it; the old actor keeps a placeholder", async (t) => {
  const s = await startTestServer();
  const peer = await startStubPeer();
  t.after(() => Promise.all([s.close(), peer.close()]));
  const oldId = `${peer.origin}/users/bob`;
  const newId = `${peer.origin}/ap/users/2`;
  peer.route("/users/bob", { body: actorDoc(oldId, "bob") });
  peer.route("/ap/users/2", { body: actorDoc(newId, "bob") });
  webfingerTable(peer, { [`bob@${peer.domain}`]: jrd(`acct:bob@${peer.domain}`, oldId) });
  const first = await resolveAccountByHandle(s.app, "bob", peer.domain);
  assert.equal(first?.uri, oldId);

  // The account was re-created on the peer: WebFinger now answers with the new actor.
  clearWebfingerCache(s.app);
  webfingerTable(peer, { [`bob@${peer.domain}`]: jrd(`acct:bob@${peer.domain}`, newId) });
  const second = await resolveAccountByUri(s.app, newId);
  assert.equal(second?.username, "bob");
  assert.notEqual(second?.id, first?.id);
  const old = findAccountByUri(s.app.db, oldId);
  assert.equal(old?.username, `bob_${first?.id}`);
});

test("key ids: an actor cannot publish another server's key id with its own key", async (t) => {
  const s = await startTestServer();
  const victim = await startFakeRemote();
  const evil = await startFakeRemote();
  t.after(() => Promise.all([s.close(), victim.close(), evil.close()]));
  const bob = victim.actor("bob");
  const stolen = freshKey();
  const eve = evil.actor("eve");
  // eve's document claims bob's key id, with a key eve holds.
  eve.doc.publicKey = { id: bob.keyId, owner: eve.id, publicKeyPem: stolen.publicKeyPem };
  const stored = await resolveAccountByUri(s.app, eve.id);
  assert.ok(stored, "eve herself is still stored");
  assert.equal(stored.publicKeyId, null, "but not with a key id of another server");
  const r = await resolveAccountByKeyId(s.app, bob.keyId);
  assert.equal(r?.account.uri, bob.id, "bob's key id resolves to bob");
  assert.equal(r?.publicKeyPem, bob.publicKeyPem);
});
