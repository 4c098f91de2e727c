// fetchApObject: signed GETs, AP §2 content types and §12 id rules.
import { test } from "node:test";
import assert from "node:assert/strict";
import { startTestServer } from "../helpers/server.ts";
import { fetchApObject, isActivityPubContentType } from "../../src/federation/fetch-object.ts";
import { AP_ACCEPT, FederationError } from "../../src/federation/types.ts";
import { AS, startStubPeer } from "./resolve-helpers.ts";

const permanent = (e: unknown) => e instanceof FederationError && e.permanent;

test("content types: activity+json, or ld+json with the ActivityStreams profile", () => {
  assert.equal(isActivityPubContentType("application/activity+json"), true);
  assert.equal(isActivityPubContentType("Application/Activity+JSON; charset=utf-8"), true);
  assert.equal(isActivityPubContentType('application/ld+json; profile="https://www.w3.org/ns/activitystreams"'), true);
  assert.equal(isActivityPubContentType('application/ld+json;profile="https://example.com/x https://www.w3.org/ns/activitystreams"'), true);
  assert.equal(isActivityPubContentType("application/ld+json"), false);
  assert.equal(isActivityPubContentType("application/json"), false);
  assert.equal(isActivityPubContentType("text/html"), false);
  assert.equal(isActivityPubContentType(null), false);
});

test("fetchApObject signs its GET, asks for AS JSON and checks type, context and id", async (t) => {
  const s = await startTestServer();
  const peer = await startStubPeer();
  t.after(() => Promise.all([s.close(), peer.close()]));
  const doc = (path: string, extra: Record<string, unknown> = {}) => ({ "@context": AS, id: `${peer.origin}${path}`, type: "Note", ...extra });

  peer.route("/ok", { body: doc("/ok") });
  assert.deepEqual(await fetchApObject(s.app, `${peer.origin}/ok`), doc("/ok"));
  assert.equal(peer.requests[0].signed, true);
  assert.equal(peer.requests[0].accept, AP_ACCEPT);

  peer.route("/ld", { type: 'application/ld+json; profile="https://www.w3.org/ns/activitystreams"', body: doc("/ld", { "@context": [AS, { x: "y" }] }) });
  assert.equal((await fetchApObject(s.app, `${peer.origin}/ld`))?.id, `${peer.origin}/ld`);

  peer.route("/json", { type: "application/json", body: doc("/json") });
  peer.route("/ldbare", { type: "application/ld+json", body: doc("/ldbare") });
  peer.route("/nocontext", { body: { id: `${peer.origin}/nocontext`, type: "Note" } });
  peer.route("/array", { body: [doc("/array")] });
  peer.route("/noid", { body: { "@context": AS, type: "Note" } });
  peer.route("/other", { body: doc("/elsewhere") });
  peer.route("/forbidden", { status: 403 });
  for (const path of ["/json", "/ldbare", "/nocontext", "/array", "/noid", "/other", "/forbidden"]) {
    await assert.rejects(fetchApObject(s.app, `${peer.origin}${path}`), permanent, path);
  }
  await assert.rejects(fetchApObject(s.app, "ftp://example.com/x"), permanent);

  peer.route("/gone", { status: 410 });
  assert.equal(await fetchApObject(s.app, `${peer.origin}/gone`), undefined);
  assert.equal(await fetchApObject(s.app, `${peer.origin}/missing`), undefined);
  peer.route("/busy", { status: 503 });
  await assert.rejects(fetchApObject(s.app, `${peer.origin}/busy`), (e: unknown) => e instanceof FederationError && !e.permanent);
});

test("fetchApObject with exactId false refetches from the canonical id, which must match", async (t) => {
  const s = await startTestServer();
  const peer = await startStubPeer();
  t.after(() => Promise.all([s.close(), peer.close()]));
  const canonical = `${peer.origin}/objects/1`;
  peer.route("/@bob/1", { body: { "@context": AS, id: canonical, type: "Note", content: "from the web URL" } });
  peer.route("/objects/1", { body: { "@context": AS, id: canonical, type: "Note", content: "canonical" } });
  const got = await fetchApObject(s.app, `${peer.origin}/@bob/1`, { exactId: false });
  assert.equal(got?.content, "canonical");
  assert.deepEqual(peer.requests.map((r) => r.path), ["/@bob/1", "/objects/1"]);

  // A document that points at an id whose own document disagrees is refused.
  peer.route("/@bob/2", { body: { "@context": AS, id: `${peer.origin}/objects/2`, type: "Note" } });
  peer.route("/objects/2", { body: { "@context": AS, id: `${peer.origin}/objects/3`, type: "Note" } });
  await assert.rejects(fetchApObject(s.app, `${peer.origin}/@bob/2`, { exactId: false }), permanent);
  // The default is exact.
  await assert.rejects(fetchApObject(s.app, `${peer.origin}/@bob/1`), permanent);
});

test("a fragment is not sent and does not count in the id comparison", async (t) => {
  const s = await startTestServer();
  const peer = await startStubPeer();
  t.after(() => Promise.all([s.close(), peer.close()]));
  peer.route("/users/bob", { body: { "@context": AS, id: `${peer.origin}/users/bob`, type: "Person" } });
  assert.equal((await fetchApObject(s.app, `${peer.origin}/users/bob#main-key`))?.id, `${peer.origin}/users/bob`);
  assert.deepEqual(peer.requests.map((r) => r.path), ["/users/bob"]);
});

test("a redirect to another server cannot serve a document in the first server's name", async (t) => {
  const s = await startTestServer();
  const victim = await startStubPeer();
  const evil = await startStubPeer();
  t.after(() => Promise.all([s.close(), victim.close(), evil.close()]));
  const claimed = `${victim.origin}/users/bob`;
  // An open redirect on the victim's server sends the fetch to evil, which claims the victim's id.
  victim.route("/redirect", (u) => ({ status: 302, headers: { location: `${evil.origin}/doc?${u.searchParams}` } }));
  evil.route("/doc", { body: { "@context": AS, id: claimed, type: "Person" } });
  await assert.rejects(fetchApObject(s.app, `${victim.origin}/redirect`, { exactId: false }), permanent);
  // A redirect within one server is fine.
  victim.route("/moved", { status: 301, headers: { location: `${victim.origin}/users/carol` } });
  victim.route("/users/carol", { body: { "@context": AS, id: `${victim.origin}/users/carol`, type: "Person" } });
  assert.equal((await fetchApObject(s.app, `${victim.origin}/moved`, { exactId: false }))?.id, `${victim.origin}/users/carol`);
});
