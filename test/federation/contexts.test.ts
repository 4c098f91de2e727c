import { test } from "node:test";
import assert from "node:assert/strict";
import { startTestServer } from "../helpers/server.ts";
import { apGet, post, statusPath } from "./ap-test-helpers.ts";
import { updateAccount } from "../../src/storage/accounts.ts";

// FEP-7888: the `context` of our Notes is dereferenceable and lists the thread's public posts.

test("a Note's context is a Collection of the thread's public and unlisted posts", async (t) => {
  const s = await startTestServer();
  t.after(() => s.close());
  const alice = await s.user("alice");
  const bob = await s.user("bob");
  const root = await post(s, alice, { status: "a thread" });
  const reply = await post(s, bob, { status: "@alice a reply", in_reply_to_id: root.id, visibility: "unlisted" });
  await post(s, alice, { status: "@bob followers only", in_reply_to_id: reply.id, visibility: "private" });
  const elsewhere = await post(s, bob, { status: "another thread" });

  const note = (await apGet(s, statusPath(bob, reply.id))).body;
  assert.match(note.context, new RegExp(`^${s.app.baseUrl}/contexts/${alice.id}-\\d+$`));
  const ctx = await apGet(s, new URL(note.context).pathname);
  assert.equal(ctx.status, 200);
  assert.equal(ctx.body.type, "Collection");
  assert.equal(ctx.body.id, note.context);
  assert.equal(ctx.body.attributedTo, alice.account.uri);
  assert.deepEqual(ctx.body.first.items, [root.uri, reply.uri]);
  assert.ok(!ctx.body.first.items.includes(elsewhere.uri));

  // A suspended account's posts leave the collection.
  updateAccount(s.app.db, bob.id, { suspendedAt: Date.now() });
  assert.deepEqual((await apGet(s, new URL(note.context).pathname)).body.first.items, [root.uri]);

  // Unknown or mismatched keys are 404.
  const conv = note.context.split("-").pop();
  for (const key of [`${bob.id}-${conv}`, "1-2", "abc", `${alice.id}-${conv}x`]) {
    assert.equal((await apGet(s, `/contexts/${key}`)).status, 404, key);
  }
});
