// Polls in pages of statuses: timelines are JSON text built from cached pieces
// (serializers/status.ts), while a poll's counts, `expired` and the viewer's votes change under
// them. The text must equal the object serializer's page for each viewer, at every moment, and a
// page with polls must still cost a fixed number of queries.
import { test } from "node:test";
import assert from "node:assert/strict";
import { toApiStatuses } from "../../src/serializers/status.ts";
import { findStatusesByIds } from "../../src/storage/statuses.ts";
import { startTestServer, type TestServer, type TestUser } from "../helpers/server.ts";

function expected(s: TestServer, page: { id: string }[], viewerId: string | null) {
  const rows = findStatusesByIds(s.app.db, page.map((p) => p.id));
  return JSON.parse(JSON.stringify(toApiStatuses(s.app, page.map((p) => rows.get(p.id)!), viewerId)));
}

test("timelines show each viewer's polls as they are now", async (t) => {
  const s = await startTestServer();
  t.after(() => s.close());
  const [alice, bob, carol] = [await s.user("alice"), await s.user("bob"), await s.user("carol")];
  let now = Date.parse("2031-07-01T08:00:00.000Z");
  s.app.now = () => now;
  for (const who of [bob, carol]) await s.api(who, "POST", `/api/v1/accounts/${alice.id}/follow`);
  const poll = await s.api(alice, "POST", "/api/v1/statuses", { status: "🐦 :one: or two?", poll: { options: ["one", "two"], expires_in: 600 } });
  await s.api(alice, "POST", "/api/v1/statuses", { status: "no poll here" });
  await s.api(carol, "POST", `/api/v1/statuses/${poll.id}/reblog`);
  await s.drainJobs();
  const home = (who: TestUser) => s.api<any[]>(who, "GET", "/api/v1/timelines/home");
  const pollIn = (page: any[]) => page.find((x) => x.id === poll.id).poll;

  // Twice for each viewer: the second page comes from the caches.
  for (let round = 0; round < 2; round++) {
    for (const who of [bob, carol]) {
      const page = await home(who);
      assert.deepEqual(page, expected(s, page, who.id));
    }
  }
  await s.api(bob, "POST", `/api/v1/polls/${poll.poll.id}/votes`, { choices: [1] });
  const bobs = await home(bob);
  assert.deepEqual(bobs, expected(s, bobs, bob.id));
  assert.deepEqual([pollIn(bobs).voted, pollIn(bobs).own_votes, pollIn(bobs).options[1].votes_count], [true, [1], 1]);
  const carols = await home(carol);
  assert.deepEqual(carols, expected(s, carols, carol.id));
  assert.deepEqual([pollIn(carols).voted, pollIn(carols).own_votes, pollIn(carols).votes_count], [false, [], 1]);
  // carol's boost (on her profile) shows the poll of the original, with carol's view of it.
  const profile = await s.api<any[]>(carol, "GET", `/api/v1/accounts/${carol.id}/statuses`);
  assert.deepEqual(profile, expected(s, profile, carol.id));
  assert.deepEqual([profile[0].poll, profile[0].reblog.poll], [null, pollIn(carols)]);
  // The public timeline, anonymous: no voted/own_votes.
  const pub = await s.api<any[]>(null, "GET", "/api/v1/timelines/public");
  assert.deepEqual(pub, expected(s, pub, null));
  assert.equal("voted" in pollIn(pub), false);

  // The clock passes the end: cached text must not keep saying it is open.
  now += 11 * 60_000;
  const later = await home(bob);
  assert.equal(pollIn(later).expired, true);
  assert.deepEqual(later, expected(s, later, bob.id));
});

test("a page with polls costs the same number of queries whatever its length", async (t) => {
  const s = await startTestServer();
  t.after(() => s.close());
  const [alice, bob] = [await s.user("alice"), await s.user("bob")];
  const ids: string[] = [];
  for (let i = 0; i < 10; i++) {
    const st = await s.api(alice, "POST", "/api/v1/statuses", { status: `poll ${i}`, poll: { options: ["a", "b"], expires_in: 600 } });
    if (i % 2) await s.api(bob, "POST", `/api/v1/polls/${st.poll.id}/votes`, { choices: [i % 2] });
    ids.push(st.id);
  }
  const found = findStatusesByIds(s.app.db, ids);
  const page = ids.map((id) => found.get(id)!);
  const proto = Object.getPrototypeOf(s.app.db.prepare("SELECT 1")) as Record<string, (...a: unknown[]) => unknown>;
  const count = (fn: () => void) => {
    let n = 0;
    const saved = { all: proto.all, get: proto.get, run: proto.run };
    for (const k of ["all", "get", "run"] as const) {
      proto[k] = function (this: unknown, ...a: unknown[]) {
        n++;
        return saved[k].apply(this, a);
      };
    }
    try {
      fn();
    } finally {
      Object.assign(proto, saved);
    }
    return n;
  };
  const tick = () => new Promise((r) => setImmediate(r));
  // Once-per-viewer lookups (the compiled filters) are cached by the first page: warm them.
  toApiStatuses(s.app, page.slice(0, 1), bob.id);
  await tick();
  const small = count(() => toApiStatuses(s.app, page.slice(0, 2), bob.id));
  await tick();
  const large = count(() => toApiStatuses(s.app, page, bob.id));
  assert.equal(large, small);
});
