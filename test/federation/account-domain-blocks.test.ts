// A user's block of a remote domain (POST/GET/DELETE /api/v1/domain_blocks) when handles carry a
// port, as on set-ups like the README's two local instances: accounts there are stored with the
// domain `127.0.0.1:PORT`, and that is what a user blocks.
import assert from "node:assert/strict";
import { test } from "node:test";
import {
  accountIdOf,
  aliceFollows,
  alicePosts,
  deliverAndRun,
  fixture,
  notifications,
  relationship,
  startWorld,
} from "./inbox-helpers.ts";

test("a host:port domain can be blocked, listed and unblocked, and the block hides its accounts", async (t) => {
  const w = await startWorld(t);
  const bob = w.remote.actor("bob");
  const domain = w.remote.domain;
  assert.match(domain, /^127\.0\.0\.1:\d+$/);
  const aliceId = await alicePosts(w);
  await deliverAndRun(w, bob, fixture(w, "mastodon/accept-follow", { FOLLOW_ID: await aliceFollows(w, bob) }));
  await deliverAndRun(w, bob, fixture(w, "mastodon/follow"));
  await deliverAndRun(w, bob, fixture(w, "mastodon/like", { STATUS: aliceId }));
  await deliverAndRun(w, bob, fixture(w, "mastodon/create-note"));
  const bobId = await accountIdOf(w, bob);
  assert.equal((await w.s.api(w.alice, "GET", `/api/v1/accounts/${bobId}`)).acct, `bob@${domain}`);
  const contents = async (path: string) => (await w.s.api(w.alice, "GET", path)).map((s: { content: string }) => s.content);
  const publicRemote = () => contents("/api/v1/timelines/public?remote=true");
  assert.deepEqual(await publicRemote(), ["<p>A heron at dawn</p>"]);
  assert.deepEqual(await contents("/api/v1/timelines/home"), ["<p>herons</p>", "<p>A heron at dawn</p>"]);
  assert.deepEqual(await notifications(w), [
    ["favourite", `bob@${domain}`],
    ["follow", `bob@${domain}`],
  ]);

  assert.deepEqual(await w.s.api(w.alice, "GET", `/api/v1/domain_blocks/preview?domain=${domain}`), { following_count: 1, followers_count: 1 });
  assert.deepEqual(await w.s.api(w.alice, "POST", "/api/v1/domain_blocks", { domain: ` ${domain} ` }), {});
  assert.deepEqual(await w.s.api(w.alice, "GET", "/api/v1/domain_blocks"), [domain]);
  const rel = await relationship(w, bob);
  assert.equal(rel.domain_blocking, true);
  assert.deepEqual([rel.following, rel.followed_by], [false, false], "the follows with that domain are severed");
  assert.deepEqual(await publicRemote(), [], "its posts leave the public timeline");
  assert.deepEqual(await contents("/api/v1/timelines/home"), ["<p>herons</p>"], "and the home timeline");
  assert.deepEqual(await notifications(w), [], "its notifications are gone");
  await deliverAndRun(w, bob, { ...fixture(w, "mastodon/like", { STATUS: await alicePosts(w, "egrets") }), id: `${bob.id}#likes/9002` });
  assert.deepEqual(await notifications(w), [], "and no new ones arrive");

  // Other ports of the same host are other servers; malformed ports are refused.
  const [host] = domain.split(":");
  assert.equal((await w.s.req(w.alice, "GET", `/api/v1/domain_blocks/preview?domain=${host}:1`)).status, 200);
  for (const bad of [`${host}:`, `${host}:0`, `${host}:65536`, `${host}:80:80`, `${host}:8o`, `http://${domain}`, `bob@${domain}`]) {
    const r = await w.s.req(w.alice, "POST", "/api/v1/domain_blocks", { domain: bad });
    assert.equal(r.status, 422, bad);
    assert.equal(r.body.error, "Validation failed: Domain is not a valid domain name", bad);
  }
  assert.deepEqual(await w.s.api(w.alice, "GET", "/api/v1/domain_blocks"), [domain]);

  assert.deepEqual(await w.s.api(w.alice, "DELETE", `/api/v1/domain_blocks?domain=${encodeURIComponent(domain)}`), {});
  assert.deepEqual(await w.s.api(w.alice, "GET", "/api/v1/domain_blocks"), []);
  assert.equal((await relationship(w, bob)).domain_blocking, false);
  assert.deepEqual(await publicRemote(), ["<p>A heron at dawn</p>"]);
});
