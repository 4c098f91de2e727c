// The live streams' batched forms of the timelines' per-viewer reads must agree with the
// per-viewer originals: viewersHidingAuthors with hiddenAuthorsAmong (blocks either way,
// mutes active or expired, domain blocks), and the viewer flags read for many viewers at once
// with the flags read for one.
import { test } from "node:test";
import assert from "node:assert/strict";
import { startTestServer } from "../helpers/server.ts";
import { remoteAccount } from "../api/relationships-helpers.ts";
import { blockAccount } from "../../src/services/blocks.ts";
import { muteAccount } from "../../src/services/mutes.ts";
import { blockDomain } from "../../src/services/account-domain-blocks.ts";
import { hiddenAuthorsAmong, viewersHidingAuthors } from "../../src/storage/relationship-checks.ts";
import { loadViewerFlags, loadViewerFlagsOfViewers } from "../../src/storage/status-viewer-flags.ts";
import { findStatusById } from "../../src/storage/statuses.ts";

test("viewersHidingAuthors agrees with hiddenAuthorsAmong for every viewer and author", async (t) => {
  const s = await startTestServer();
  t.after(() => s.close());
  const users = await Promise.all(["a", "b", "c", "d", "e"].map((n) => s.user(n)));
  const [a, b, c, d, e] = users.map((u) => u.account);
  const far = remoteAccount(s.app, "far", "far.example");
  const near = remoteAccount(s.app, "near", "Near.Example");
  blockAccount(s.app, a, b);
  blockAccount(s.app, c, a);
  muteAccount(s.app, a, d, {});
  muteAccount(s.app, b, e, { duration: 60 });
  blockDomain(s.app, c, "far.example");
  blockDomain(s.app, e, "near.example");
  const viewers = [a, b, c, d, e].map((x) => x.id);
  const authors = [a, b, c, d, e, far, near].map((x) => x.id);
  for (const at of [s.app.now(), s.app.now() + 120_000]) {
    for (const author of authors) {
      const batched = viewersHidingAuthors(s.app.db, viewers, [author], at);
      const single = new Set(viewers.filter((v) => v !== author && hiddenAuthorsAmong(s.app.db, v, [author], at).size > 0));
      assert.deepEqual(batched, single, `author ${author} at ${at}`);
    }
  }
  // A few expected answers, so the two cannot agree by both being wrong.
  const now = s.app.now();
  assert.deepEqual(viewersHidingAuthors(s.app.db, viewers, [b.id], now), new Set([a.id]));
  assert.deepEqual(viewersHidingAuthors(s.app.db, viewers, [a.id], now), new Set([b.id, c.id]));
  assert.deepEqual(viewersHidingAuthors(s.app.db, viewers, [e.id], now), new Set([b.id]));
  assert.deepEqual(viewersHidingAuthors(s.app.db, viewers, [e.id], now + 120_000), new Set());
  assert.deepEqual(viewersHidingAuthors(s.app.db, viewers, [far.id, near.id], now), new Set([c.id, e.id]));
});

test("viewer flags read for many viewers equal the flags read one viewer at a time", async (t) => {
  const s = await startTestServer();
  t.after(() => s.close());
  const [alice, bob, carol] = await Promise.all(["alice", "bob", "carol"].map((n) => s.user(n)));
  const p = await s.api(alice, "POST", "/api/v1/statuses", { status: "flags" });
  const q = await s.api(alice, "POST", "/api/v1/statuses", { status: "more flags" });
  await s.api(bob, "POST", `/api/v1/statuses/${p.id}/favourite`);
  await s.api(bob, "POST", `/api/v1/statuses/${q.id}/bookmark`);
  await s.api(carol, "POST", `/api/v1/statuses/${p.id}/reblog`);
  await s.api(alice, "POST", `/api/v1/statuses/${p.id}/pin`);
  await s.api(carol, "POST", `/api/v1/statuses/${q.id}/mute`);
  const conv = findStatusById(s.app.db, q.id)!.conversationId!;
  const viewers = [alice.id, bob.id, carol.id];
  const many = loadViewerFlagsOfViewers(s.app.db, viewers, [p.id, q.id], [conv]);
  for (const v of viewers) assert.deepEqual(many.get(v), loadViewerFlags(s.app.db, v, [p.id, q.id], [conv]), v);
  assert.deepEqual([...many.get(bob.id)!.favourited, ...many.get(bob.id)!.bookmarked], [p.id, q.id]);
  assert.deepEqual([...many.get(carol.id)!.reblogged], [p.id]);
  assert.deepEqual([...many.get(carol.id)!.mutedConversations], [conv]);
  assert.deepEqual([...many.get(alice.id)!.pinned], [p.id]);
});
