import { test } from "node:test";
import assert from "node:assert/strict";
import { startTestServer } from "../helpers/server.ts";

// Relationship changes reach the materialised home feed (removeAccountFromFeeds).
test("unfollow, mute and block take the account's posts out of the home timeline", async (t) => {
  const s = await startTestServer();
  t.after(() => s.close());
  const alice = await s.user("alice");
  const bob = await s.user("bob");
  const carol = await s.user("carol");
  const home = async () => {
    await s.drainJobs();
    return (await s.api(alice, "GET", "/api/v1/timelines/home")).map((st: any) => st.account.username);
  };
  for (const u of [bob, carol]) await s.api(alice, "POST", `/api/v1/accounts/${u.id}/follow`);
  await s.api(bob, "POST", "/api/v1/statuses", { status: "from bob" });
  await s.api(carol, "POST", "/api/v1/statuses", { status: "from carol" });
  assert.deepEqual(await home(), ["carol", "bob"]);

  await s.api(alice, "POST", `/api/v1/accounts/${bob.id}/unfollow`);
  assert.deepEqual(await home(), ["carol"]);
  await s.api(alice, "POST", `/api/v1/accounts/${carol.id}/mute`);
  assert.deepEqual(await home(), []);
  // Unmuting a followed account merges its posts back (Mastodon's UnmuteService), new ones arrive.
  await s.api(alice, "POST", `/api/v1/accounts/${carol.id}/unmute`);
  await s.api(carol, "POST", "/api/v1/statuses", { status: "again" });
  assert.deepEqual(await home(), ["carol", "carol"]);
  await s.api(carol, "POST", `/api/v1/accounts/${alice.id}/block`); // blocked by carol: gone too
  assert.deepEqual(await home(), []);
  assert.equal((await s.api(alice, "GET", `/api/v1/accounts/relationships?id[]=${carol.id}`))[0].following, false);
});
