import { test } from "node:test";
import assert from "node:assert/strict";
import type { Row } from "../../src/db/db.ts";
import { fanOutStatus } from "../../src/services/fanout.ts";
import { startTestServer } from "../helpers/server.ts";
import { ids, post } from "../helpers/posting.ts";

// The status.fanout job as the runner batches it: large fan-outs continue in follow-up jobs,
// and running a fan-out again (a retry) adds nothing twice.

const HOME = "/api/v1/timelines/home";

test("status.fanout: follow-up jobs for the followers after a batch; a re-run duplicates nothing", async (t) => {
  const s = await startTestServer();
  t.after(() => s.close());
  const [alice, bob, carol, dave] = [await s.user("alice"), await s.user("bob"), await s.user("carol"), await s.user("dave")];
  await s.api(bob, "POST", `/api/v1/accounts/${alice.id}/follow`, { notify: true });
  await s.api(carol, "POST", `/api/v1/accounts/${alice.id}/follow`);
  await s.api(dave, "POST", `/api/v1/accounts/${alice.id}/follow`);
  await s.drainJobs();

  const p = await post(s, alice, { status: "to all three, one at a time" });
  s.app.db.prepare("DELETE FROM jobs WHERE name = 'status.fanout'").run(); // run it by hand instead
  fanOutStatus(s.app, p.id, { followerBatchSize: 1 });
  const followUps = s.app.db.prepare("SELECT payload FROM jobs WHERE name = 'status.fanout'").all() as Row[];
  assert.equal(followUps.length, 1, "one follow-up for the followers after the first");
  const payload = JSON.parse(followUps[0].payload as string) as { statusId: string; followersAfter: string };
  assert.equal(payload.statusId, p.id);
  assert.match(payload.followersAfter, /^[0-9]+$/);
  const reached = [bob, carol, dave].filter((u) =>
    s.app.db.prepare("SELECT 1 FROM home_feeds WHERE account_id = ? AND status_id = ?").get(BigInt(u.id), BigInt(p.id)),
  );
  assert.equal(reached.length, 1, "the first batch reached one follower");

  await s.drainJobs();
  for (const u of [alice, bob, carol, dave]) assert.deepEqual(await ids(s, u, HOME), [p.id], `${u.username}'s home`);

  // A retried fan-out (as after a crash of an ordinary runner) writes nothing twice.
  fanOutStatus(s.app, p.id);
  await s.drainJobs();
  for (const u of [alice, bob, carol, dave]) assert.deepEqual(await ids(s, u, HOME), [p.id], `${u.username}'s home`);
  const notes = await s.api<{ type: string; status: { id: string } }[]>(bob, "GET", "/api/v1/notifications?types[]=status");
  assert.deepEqual(
    notes.map((n) => [n.type, n.status.id]),
    [["status", p.id]],
    "one status notification for the follower who asked for them",
  );
});
