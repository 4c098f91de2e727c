// WebFinger as a client (discovery.md §1.2): subject and self validation, host-meta fallback on
// 404 only, 410 as gone, and the short cache.
import { test } from "node:test";
import assert from "node:assert/strict";
import { startTestServer } from "../helpers/server.ts";
import { webfinger } from "../../src/federation/resolve/webfinger-client.ts";
import { FederationError } from "../../src/federation/types.ts";
import { createDomainBlock } from "../../src/services/domain-blocks.ts";
import { JRD, jrd, startStubPeer } from "./resolve-helpers.ts";

test("webfinger returns the subject and the ActivityPub self link, unsigned, asking for JRD", async (t) => {
  const s = await startTestServer();
  const peer = await startStubPeer();
  t.after(() => Promise.all([s.close(), peer.close()]));
  peer.route("/.well-known/webfinger", (u) =>
    u.searchParams.get("resource") === `acct:bob@${peer.domain}` ? jrd(`acct:Bob@${peer.domain}`, `${peer.origin}/users/bob`) : { status: 404 },
  );
  const r = await webfinger(s.app, "bob", peer.domain);
  assert.deepEqual(r, { subject: `acct:Bob@${peer.domain}`, actorUri: `${peer.origin}/users/bob` });
  assert.equal(peer.requests.length, 1);
  assert.equal(peer.requests[0].signed, false);
  assert.equal(peer.requests[0].accept, "application/jrd+json, application/json");
  // Cached: asking again (in any case) does not reach the peer.
  assert.deepEqual(await webfinger(s.app, "BOB", peer.domain), r);
  assert.equal(peer.requests.length, 1);
});

test("webfinger accepts the ld+json profile self type and a subject without acct:", async (t) => {
  const s = await startTestServer();
  const peer = await startStubPeer();
  t.after(() => Promise.all([s.close(), peer.close()]));
  peer.route("/.well-known/webfinger", jrd(`carol@${peer.domain}`, `${peer.origin}/u/carol`, 'application/ld+json; profile="https://www.w3.org/ns/activitystreams"'));
  const r = await webfinger(s.app, "carol", peer.domain);
  assert.deepEqual(r, { subject: `acct:carol@${peer.domain}`, actorUri: `${peer.origin}/u/carol` });
});

test("webfinger refuses a JRD without a subject or without an ActivityPub self link", async (t) => {
  const s = await startTestServer();
  const peer = await startStubPeer();
  t.after(() => Promise.all([s.close(), peer.close()]));
  peer.route("/.well-known/webfinger", (u) => {
    const who = u.searchParams.get("resource")!.slice(5).split("@")[0];
    if (who === "nosubject") return { type: JRD, body: { links: [{ rel: "self", type: "application/activity+json", href: `${peer.origin}/users/x` }] } };
    if (who === "htmlself") return jrd(`acct:htmlself@${peer.domain}`, `${peer.origin}/@htmlself`, "text/html");
    if (who === "ftpself") return jrd(`acct:ftpself@${peer.domain}`, "ftp://example.com/x");
    return { type: JRD, body: "not json{" };
  });
  for (const who of ["nosubject", "htmlself", "ftpself", "garbage"]) {
    await assert.rejects(webfinger(s.app, who, peer.domain), (e: unknown) => e instanceof FederationError && e.permanent, who);
  }
});

test("webfinger falls back to host-meta's lrdd template on 404, not on other errors", async (t) => {
  const s = await startTestServer();
  const peer = await startStubPeer();
  t.after(() => Promise.all([s.close(), peer.close()]));
  peer.route("/.well-known/webfinger", { status: 404 });
  peer.route("/.well-known/host-meta", {
    type: "application/xrd+xml",
    body: `<?xml version="1.0" encoding="UTF-8"?>\n<XRD xmlns="http://docs.oasis-open.org/ns/xri/xrd-1.0">\n  <Link template='${peer.origin}/wf?format=jrd&amp;resource={uri}' rel="lrdd"/>\n</XRD>`,
  });
  peer.route("/wf", (u) => (u.searchParams.get("format") === "jrd" ? jrd(u.searchParams.get("resource")!, `${peer.origin}/people/dave`) : { status: 400 }));
  const r = await webfinger(s.app, "dave", peer.domain);
  assert.deepEqual(r, { subject: `acct:dave@${peer.domain}`, actorUri: `${peer.origin}/people/dave` });
  assert.deepEqual(
    peer.requests.map((q) => q.path),
    [
      `/.well-known/webfinger?resource=${encodeURIComponent(`acct:dave@${peer.domain}`)}`,
      "/.well-known/host-meta",
      `/wf?format=jrd&resource=${encodeURIComponent(`acct:dave@${peer.domain}`)}`,
    ],
  );
  assert.equal(peer.requests[1].accept, "application/xrd+xml, application/xml, text/xml");

  // A 500 is an error of its own: no host-meta, and a retry may help (not permanent).
  peer.requests.length = 0;
  peer.route("/.well-known/webfinger", { status: 503 });
  await assert.rejects(webfinger(s.app, "erin", peer.domain), (e: unknown) => e instanceof FederationError && !e.permanent);
  assert.deepEqual(peer.requests.map((q) => q.path.split("?")[0]), ["/.well-known/webfinger"]);
});

test("webfinger: 410 is gone (undefined) without a host-meta fallback; 404 everywhere is unknown", async (t) => {
  const s = await startTestServer();
  const peer = await startStubPeer();
  t.after(() => Promise.all([s.close(), peer.close()]));
  peer.route("/.well-known/webfinger", { status: 410 });
  assert.equal(await webfinger(s.app, "gone", peer.domain), undefined);
  assert.deepEqual(peer.requests.map((q) => q.path.split("?")[0]), ["/.well-known/webfinger"]);

  peer.route("/.well-known/webfinger", { status: 404 });
  assert.equal(await webfinger(s.app, "nobody", peer.domain), undefined);
  assert.deepEqual(peer.requests.map((q) => q.path.split("?")[0]), ["/.well-known/webfinger", "/.well-known/webfinger", "/.well-known/host-meta"]);
});

test("webfinger never asks a suspended domain", async (t) => {
  const s = await startTestServer();
  const peer = await startStubPeer();
  t.after(() => Promise.all([s.close(), peer.close()]));
  createDomainBlock(s.app, { domain: "127.0.0.1", severity: "suspend" });
  await assert.rejects(webfinger(s.app, "bob", peer.domain), (e: unknown) => e instanceof FederationError && e.permanent);
  assert.equal(peer.requests.length, 0);
});
