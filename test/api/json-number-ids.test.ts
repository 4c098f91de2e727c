// Ids sent as JSON numbers (Mastodon.py does this) keep every digit: roost's ids are beyond
// 2^53, where JSON.parse would round them (117672769330833407 → 117672769330833400).
import { test } from "node:test";
import assert from "node:assert/strict";
import { startTestServer, type TestServer, type TestUser } from "../helpers/server.ts";
import { png } from "./accounts-helpers.ts";

/** JSON with the given ids written as bare numbers, as Mastodon.py sends them. */
function numeric(body: Record<string, unknown>, ids: string[]): string {
  let json = JSON.stringify(body);
  for (const id of ids) json = json.replaceAll(`"${id}"`, id);
  return json;
}

const send = (s: TestServer, who: TestUser, method: string, path: string, body: Record<string, unknown>, ids: string[]) =>
  s.req(who, method, path, numeric(body, ids), { "content-type": "application/json" });

test("ids sent as JSON numbers keep every digit on every endpoint that reads them", async (t) => {
  const s = await startTestServer();
  t.after(() => s.close());
  const alice = await s.user("alice");
  const bob = await s.user("bob");
  const post = await s.api(bob, "POST", "/api/v1/statuses", { status: "first" });
  assert.ok(BigInt(post.id) > BigInt(Number.MAX_SAFE_INTEGER), "real ids are beyond 2^53");
  assert.notEqual(String(Number(post.id)), post.id, "and JSON.parse would change this one");

  // Markers: the saved position is the post, not a rounded neighbour.
  const marker = await send(s, alice, "POST", "/api/v1/markers", { home: { last_read_id: post.id } }, [post.id]);
  assert.equal(marker.status, 200);
  assert.equal(marker.body.home.last_read_id, post.id);
  assert.equal((await s.api(alice, "GET", "/api/v1/markers?timeline[]=home")).home.last_read_id, post.id);

  // A reply: the parent is found (a rounded id was a 422 before).
  const reply = await send(s, alice, "POST", "/api/v1/statuses", { status: "@bob hello", in_reply_to_id: post.id }, [post.id]);
  assert.equal(reply.status, 200, JSON.stringify(reply.body));
  assert.equal(reply.body.in_reply_to_id, post.id);
  assert.equal(reply.body.in_reply_to_account_id, bob.id);

  // media_ids: an unknown upload; the refusal names the id exactly as sent.
  const mediaId = "117672769330833407";
  const media = await send(s, alice, "POST", "/api/v1/statuses", { status: "pic", media_ids: [mediaId] }, [mediaId]);
  assert.equal(media.status, 422);
  assert.match(media.body.error, new RegExp(`\\b${mediaId}\\b`));
  // ...and a real upload is attached by its exact id.
  const form = new FormData();
  form.append("file", new Blob([new Uint8Array(await png(4, 4))], { type: "image/png" }), "dot.png");
  const upload = await s.api(alice, "POST", "/api/v2/media", form);
  const withMedia = await send(s, alice, "POST", "/api/v1/statuses", { status: "pic", media_ids: [upload.id] }, [upload.id]);
  assert.equal(withMedia.status, 200, JSON.stringify(withMedia.body));
  assert.deepEqual(withMedia.body.media_attachments.map((m: { id: string }) => m.id), [upload.id]);

  // List members.
  await s.api(alice, "POST", `/api/v1/accounts/${bob.id}/follow`);
  const list = await s.api(alice, "POST", "/api/v1/lists", { title: "friends" });
  const added = await send(s, alice, "POST", `/api/v1/lists/${list.id}/accounts`, { account_ids: [bob.id] }, [bob.id]);
  assert.equal(added.status, 200, JSON.stringify(added.body));
  assert.deepEqual((await s.api(alice, "GET", `/api/v1/lists/${list.id}/accounts`)).map((a: any) => a.id), [bob.id]);
  const removed = await send(s, alice, "DELETE", `/api/v1/lists/${list.id}/accounts`, { account_ids: [bob.id] }, [bob.id]);
  assert.equal(removed.status, 200);
  assert.deepEqual(await s.api(alice, "GET", `/api/v1/lists/${list.id}/accounts`), []);

  // Reports: the account and the status.
  const report = await send(s, alice, "POST", "/api/v1/reports", { account_id: bob.id, status_ids: [post.id], category: "spam" }, [bob.id, post.id]);
  assert.equal(report.status, 200, JSON.stringify(report.body));
  assert.equal(report.body.target_account.id, bob.id);
  assert.deepEqual(report.body.status_ids, [post.id]);

});

test("a body with such a number still merges, casts and refuses as before", async (t) => {
  const s = await startTestServer();
  t.after(() => s.close());
  const alice = await s.user("alice");
  const post = await s.api(alice, "POST", "/api/v1/statuses", { status: "hi" });
  // Numbers beside the id are still numbers (limit, booleans as 0/1) and a duplicated key keeps its last value.
  const body = `{"home":{"last_read_id":${post.id}},"notifications":{"last_read_id":1},"notifications":{"last_read_id":${post.id}}}`;
  const r = await s.req(alice, "POST", "/api/v1/markers", body, { "content-type": "application/json" });
  assert.equal(r.status, 200);
  assert.equal(r.body.home.last_read_id, post.id);
  assert.equal(r.body.notifications.last_read_id, post.id);
  const bad = await s.req(alice, "POST", "/api/v1/markers", `{"home":{"last_read_id":${post.id}}`, { "content-type": "application/json" });
  assert.equal(bad.status, 400);
  assert.deepEqual(bad.body, { error: "Malformed JSON body" });
});
