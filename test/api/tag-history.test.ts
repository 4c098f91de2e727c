// A tag's `history` (issue 12 part 4): uses and distinct accounts per UTC day for the last seven
// days, newest first, every value a string, counted from our own posts as Mastodon's
// Trends::Tags#register counts them (public originals), on the app's clock.
import { test } from "node:test";
import assert from "node:assert/strict";
import { startTestServer, type TestServer, type TestUser } from "../helpers/server.ts";
import { trimTagHistory } from "../../src/jobs/handlers/tag-history-trim.ts";

const DAY = 86_400_000;
const T = Date.UTC(2026, 2, 10, 15, 30); // a Tuesday afternoon
const MIDNIGHT = Date.UTC(2026, 2, 10);

const post = async (s: TestServer, who: TestUser, status: string, extra: Record<string, unknown> = {}) =>
  (await s.api(who, "POST", "/api/v1/statuses", { status, ...extra })).id as string;

/** [day in Unix seconds, uses, accounts] of the seven days. */
async function history(s: TestServer, who: TestUser | null, name: string): Promise<[string, string, string][]> {
  const tag = await s.api(who, "GET", `/api/v1/tags/${name}`);
  return tag.history.map((h: { day: string; uses: string; accounts: string }) => [h.day, h.uses, h.accounts]);
}

const day = (daysAgo: number) => String((MIDNIGHT - daysAgo * DAY) / 1000);

test("history counts public posts per day and the accounts behind them", async (t) => {
  const s = await startTestServer();
  t.after(() => s.close());
  const [alice, bob, carol] = await Promise.all(["alice", "bob", "carol"].map((u) => s.user(u)));

  s.app.now = () => T - 8 * DAY; // before the window: never shown
  await post(s, alice, "#birds long ago");
  s.app.now = () => T - 2 * DAY;
  await post(s, alice, "#birds two days ago");
  s.app.now = () => MIDNIGHT - DAY + 1; // just after yesterday's midnight
  await post(s, alice, "#Birds yesterday");
  await post(s, bob, "#birds yesterday too");
  s.app.now = () => MIDNIGHT + DAY - 1; // just before tonight's midnight
  await post(s, bob, "#birds today");
  await post(s, bob, "#birds #birds today again");
  // Not counted: unlisted, private and direct posts, boosts, posts without the tag.
  const original = await post(s, carol, "#birds unlisted", { visibility: "unlisted" });
  await post(s, carol, "#birds private", { visibility: "private" });
  await post(s, carol, "#birds @alice", { visibility: "direct" });
  await s.api(alice, "POST", `/api/v1/statuses/${original}/reblog`);
  await post(s, carol, "#cats");
  await s.drainJobs();

  const expected: [string, string, string][] = [
    [day(0), "2", "1"],
    [day(1), "2", "2"],
    [day(2), "1", "1"],
    [day(3), "0", "0"],
    [day(4), "0", "0"],
    [day(5), "0", "0"],
    [day(6), "0", "0"],
  ];
  assert.deepEqual(await history(s, null, "birds"), expected);
  assert.deepEqual(await history(s, alice, "BIRDS"), expected, "any spelling, with a token too");

  // Search and the followed-tags list carry the same history and the viewer's `following`.
  await s.api(bob, "POST", "/api/v1/tags/birds/follow");
  const [found] = (await s.api(bob, "GET", "/api/v2/search?q=%23birds&type=hashtags")).hashtags;
  assert.deepEqual(found.history.map((h: any) => [h.day, h.uses, h.accounts]), expected);
  assert.equal(found.following, true);
  assert.equal(found.featuring, false);
  const [viaAlice] = (await s.api(alice, "GET", "/api/v2/search?q=birds&type=hashtags")).hashtags;
  assert.equal(viaAlice.following, false);
  const [followed] = await s.api(bob, "GET", "/api/v1/followed_tags");
  assert.deepEqual(followed.history.map((h: any) => h.uses), ["2", "2", "1", "0", "0", "0", "0"]);

  // Like Mastodon's counters, a deleted post stays counted.
  const [latest] = await s.api(bob, "GET", `/api/v1/accounts/${bob.id}/statuses?limit=1`);
  await s.api(bob, "DELETE", `/api/v1/statuses/${latest.id}`);
  assert.deepEqual(await history(s, null, "birds"), expected);

  // A day later the window has moved by one day.
  s.app.now = () => T + DAY;
  assert.deepEqual(
    (await history(s, null, "birds")).map((h) => h[1]),
    ["0", "2", "2", "1", "0", "0", "0"],
  );
  // Trimming drops only what the window no longer shows.
  s.app.now = () => T + 6 * DAY;
  const days = () => Number((s.app.db.prepare("SELECT count(*) AS n FROM tag_days").get() as { n: number }).n);
  assert.equal(days(), 5); // #birds on four days, #cats on one
  trimTagHistory(s.app);
  assert.equal(days(), 4, "the day eight days before T is gone");
  assert.deepEqual(
    (await history(s, null, "birds")).map((h) => h[1]),
    ["0", "0", "0", "0", "0", "0", "2"],
  );
});
