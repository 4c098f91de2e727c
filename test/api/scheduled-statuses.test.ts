import { test } from "node:test";
import assert from "node:assert/strict";
import { startTestServer, type TestServer, type TestUser } from "../helpers/server.ts";
import { tx } from "../../src/db/db.ts";
import { scheduleStatus } from "../../src/services/scheduled-statuses.ts";
import { toApiScheduledStatus } from "../../src/serializers/scheduled-status.ts";

// Scheduled statuses over HTTP: POST /api/v1/statuses with scheduled_at, the
// /api/v1/scheduled_statuses resource, and publication by the persisted job at the app's
// clock (moved, never slept on). The restart of a real `serve` is in test/cli/.

const MIN = 60_000;
const DAY = 24 * 60 * MIN;
const iso = (ms: number) => new Date(ms).toISOString();

/** Freezes the app's clock; tests move it forward. */
function clockOf(s: TestServer) {
  let t = s.app.now();
  s.app.now = () => t;
  return { now: () => t, set: (ms: number) => void (t = ms) };
}

const statusesOf = (s: TestServer, who: TestUser, of: TestUser) => s.api<any[]>(who, "GET", `/api/v1/accounts/${of.id}/statuses`);

test("scheduled statuses", async (t) => {
  const s = await startTestServer();
  t.after(() => s.close());
  const clock = clockOf(s);
  const alice = await s.user("alice");
  const bob = await s.user("bob");
  await s.api(bob, "POST", `/api/v1/accounts/${alice.id}/follow`);
  await s.drainJobs();

  await t.test("a post scheduled with its options is kept, listed, and published once at its time", async () => {
    const at = clock.now() + 2 * 60 * MIN;
    const reply = await s.api(bob, "POST", "/api/v1/statuses", { status: "what's on tomorrow?" });
    const sch = await s.api(alice, "POST", "/api/v1/statuses", {
      status: "@bob the #garden opens at nine",
      scheduled_at: iso(at),
      visibility: "unlisted",
      spoiler_text: "plans",
      sensitive: true,
      language: "en",
      in_reply_to_id: reply.id,
    });
    assert.match(sch.id, /^\d+$/);
    assert.equal(sch.scheduled_at, iso(at));
    assert.deepEqual(sch.params, {
      text: "@bob the #garden opens at nine",
      poll: null,
      media_ids: null,
      sensitive: true,
      spoiler_text: "plans",
      visibility: "unlisted",
      scheduled_at: null,
      in_reply_to_id: reply.id,
      language: "en",
      application_id: sch.params.application_id,
      idempotency: null,
      with_rate_limit: false,
      allowed_mentions: null,
    });
    assert.match(sch.params.application_id, /^\d+$/);
    assert.deepEqual(sch.media_attachments, []);
    assert.equal(sch.content, undefined, "a ScheduledStatus, not a Status");

    // Nothing is posted yet: not on the profile, not in the follower's home, no mention.
    assert.deepEqual(await statusesOf(s, alice, alice), []);
    await s.drainJobs();
    assert.equal((await s.api<any[]>(bob, "GET", "/api/v1/timelines/home")).some((x) => x.account.id === alice.id), false);
    assert.deepEqual(await s.api(bob, "GET", "/api/v1/notifications"), []);
    assert.deepEqual(await s.api(alice, "GET", `/api/v1/scheduled_statuses/${sch.id}`), sch);
    assert.deepEqual(await s.api(alice, "GET", "/api/v1/scheduled_statuses"), [sch]);
    // Someone else's scheduled post does not exist for them.
    for (const [method, body] of [["GET"], ["PUT", { scheduled_at: iso(at + DAY) }], ["DELETE"]] as const) {
      const r = await s.req(bob, method, `/api/v1/scheduled_statuses/${sch.id}`, body);
      assert.deepEqual([r.status, r.body], [404, { error: "Record not found" }], method);
    }
    assert.deepEqual(await s.api(bob, "GET", "/api/v1/scheduled_statuses"), []);

    // A second before its time: still waiting.
    clock.set(at - 1000);
    await s.drainJobs();
    assert.deepEqual(await statusesOf(s, alice, alice), []);

    clock.set(at);
    await s.drainJobs();
    const [st, ...more] = await statusesOf(s, alice, alice);
    assert.equal(more.length, 0);
    assert.match(st.content, /the <a [^>]*>#<span>garden<\/span><\/a> opens at nine/);
    assert.equal(st.visibility, "unlisted");
    assert.equal(st.spoiler_text, "plans");
    assert.equal(st.sensitive, true);
    assert.equal(st.language, "en");
    assert.equal(st.in_reply_to_id, reply.id);
    assert.equal(st.created_at, iso(at));
    assert.deepEqual(st.application, { name: "Roost CLI", website: null });
    assert.deepEqual(st.mentions.map((m: any) => m.id), [bob.id]);
    // The post went out as any other: fan-out to the follower's home, the mention notified.
    assert.equal((await s.api<any[]>(bob, "GET", "/api/v1/timelines/home"))[0].id, st.id);
    const [n] = await s.api<any[]>(bob, "GET", "/api/v1/notifications");
    assert.deepEqual([n.type, n.status.id], ["mention", st.id]);
    assert.equal((await s.api(bob, "GET", `/api/v1/statuses/${reply.id}`)).replies_count, 1);

    // Gone from the scheduled list, and a second run posts nothing twice.
    assert.deepEqual(await s.api(alice, "GET", "/api/v1/scheduled_statuses"), []);
    assert.equal((await s.req(alice, "GET", `/api/v1/scheduled_statuses/${sch.id}`)).status, 404);
    clock.set(at + DAY);
    await s.drainJobs();
    assert.equal((await statusesOf(s, alice, alice)).length, 1);
  });

  await t.test("the user's default visibility and language apply at publication, as in Mastodon", async () => {
    const at = clock.now() + 10 * MIN;
    const sch = await s.api(bob, "POST", "/api/v1/statuses", { status: "defaults later", scheduled_at: iso(at) });
    assert.equal(sch.params.visibility, null);
    assert.equal(sch.params.sensitive, null);
    await s.api(bob, "PATCH", "/api/v1/accounts/update_credentials", { source: { privacy: "private" } });
    clock.set(at);
    await s.drainJobs();
    const [st] = await statusesOf(s, bob, bob);
    assert.deepEqual([st.content, st.visibility], ["<p>defaults later</p>", "private"]);
  });

  await t.test("bad times are refused with Mastodon's wording and nothing is kept", async () => {
    const now = clock.now();
    const refused: [string, number, string][] = [
      [iso(now - DAY), 422, "Validation failed: Scheduled at date must be in the future"],
      [iso(now - 1000), 422, "Validation failed: Scheduled at date must be in the future"],
      [iso(now + 4 * MIN), 422, "Validation failed: Scheduled at date must be in the future"],
      [iso(now + 5 * MIN), 422, "Validation failed: Scheduled at date must be in the future"],
      ["tomorrow", 422, "Record invalid"],
      ["2030-13-01T10:00:00Z", 422, "Record invalid"],
      ["2030-02-30T10:00:00Z", 422, "Record invalid"],
      ["2030-01-01T24:00:00Z", 422, "Record invalid"],
      ["1e99", 422, "Record invalid"],
      ["x".repeat(10_000), 422, "Record invalid"],
    ];
    for (const [at, status, error] of refused) {
      const r = await s.req(alice, "POST", "/api/v1/statuses", { status: "when?", scheduled_at: at });
      assert.deepEqual([r.status, r.body], [status, { error }], at.slice(0, 40));
    }
    // Wrong types are refused the same way.
    for (const at of [12345, true, 1.5]) {
      const r = await s.req(alice, "POST", "/api/v1/statuses", { status: "when?", scheduled_at: at });
      assert.deepEqual([r.status, r.body], [422, { error: "Record invalid" }], String(at));
    }
    // The post's own rules apply when it is scheduled, not only when it goes out.
    const at = iso(now + 10 * MIN);
    const cases: [Record<string, unknown>, number, string][] = [
      [{ status: " " }, 422, "Validation failed: Text can't be blank"],
      [{ status: "x".repeat(501) }, 422, "Validation failed: Text character limit of 500 exceeded"],
      [{ status: "hi", visibility: "everyone" }, 422, "Validation failed: Visibility is not included in the list"],
      [{ status: "hi", in_reply_to_id: "123" }, 404, "The post you are trying to reply to does not appear to exist."],
      [{ status: "hi", media_ids: ["117672769330833407"] }, 422, "Media 117672769330833407 not found or already attached to another post"],
    ];
    for (const [body, status, error] of cases) {
      const r = await s.req(alice, "POST", "/api/v1/statuses", { ...body, scheduled_at: at });
      assert.deepEqual([r.status, r.body], [status, { error }], JSON.stringify(body).slice(0, 40));
    }
    // Other formats of a valid time: an offset, a space, no zone (UTC).
    const ok: [string, number][] = [
      ["2031-06-01T12:00:00+02:00", Date.UTC(2031, 5, 1, 10)],
      ["2031-06-01 12:00:00", Date.UTC(2031, 5, 1, 12)],
      ["2031-06-01T12:00:00.5-0130", Date.UTC(2031, 5, 1, 13, 30, 0, 500)],
    ];
    for (const [raw, ms] of ok) {
      const sch = await s.api(alice, "POST", "/api/v1/statuses", { status: "later", scheduled_at: raw });
      assert.equal(sch.scheduled_at, iso(ms), raw);
      await s.api(alice, "DELETE", `/api/v1/scheduled_statuses/${sch.id}`);
    }
    assert.deepEqual(await s.api(alice, "GET", "/api/v1/scheduled_statuses"), []);
    // An empty scheduled_at is no schedule: the post goes out now.
    const now2 = await s.api(alice, "POST", "/api/v1/statuses", { status: "right away", scheduled_at: "" });
    assert.equal(now2.content, "<p>right away</p>");
  });

  await t.test("PUT moves the time and its job; the old time passes without a post", async () => {
    const first = clock.now() + 30 * MIN;
    const sch = await s.api(alice, "POST", "/api/v1/statuses", { status: "moved around", scheduled_at: iso(first) });
    const later = first + 3 * 60 * MIN;
    const moved = await s.api(alice, "PUT", `/api/v1/scheduled_statuses/${sch.id}`, { scheduled_at: iso(later) });
    assert.deepEqual(moved, { ...sch, scheduled_at: iso(later) });
    // Refusals leave it as it was.
    for (const [at, error] of [
      [iso(clock.now() + MIN), "Validation failed: Scheduled at date must be in the future"],
      [iso(clock.now() - DAY), "Validation failed: Scheduled at date must be in the future"],
      ["soon", "Record invalid"],
      ["", "Record invalid"],
    ]) {
      const r = await s.req(alice, "PUT", `/api/v1/scheduled_statuses/${sch.id}`, { scheduled_at: at });
      assert.deepEqual([r.status, r.body], [422, { error }], at);
    }
    // No scheduled_at: unchanged, as Mastodon's update with no attributes.
    assert.deepEqual(await s.api(alice, "PUT", `/api/v1/scheduled_statuses/${sch.id}`, {}), moved);
    assert.deepEqual(await s.api(alice, "GET", `/api/v1/scheduled_statuses/${sch.id}`), moved);

    const texts = async () => (await statusesOf(s, alice, alice)).map((x) => x.content);
    clock.set(first);
    await s.drainJobs();
    assert.equal((await texts()).includes("<p>moved around</p>"), false, "not at the old time");
    // Earlier again (form-encoded this time): the post goes out at the new time, once.
    const earlier = first + 30 * MIN;
    const back = await s.api(alice, "PUT", `/api/v1/scheduled_statuses/${sch.id}`, new URLSearchParams({ scheduled_at: iso(earlier) }));
    assert.equal(back.scheduled_at, iso(earlier));
    clock.set(earlier);
    await s.drainJobs();
    assert.equal((await texts()).filter((x) => x === "<p>moved around</p>").length, 1);
    clock.set(later);
    await s.drainJobs();
    assert.equal((await texts()).filter((x) => x === "<p>moved around</p>").length, 1);
  });

  await t.test("DELETE withdraws it: {} and no post at its time", async () => {
    const at = clock.now() + 20 * MIN;
    const sch = await s.api(alice, "POST", "/api/v1/statuses", { status: "never mind", scheduled_at: iso(at) });
    assert.deepEqual(await s.api(alice, "DELETE", `/api/v1/scheduled_statuses/${sch.id}`), {});
    assert.equal((await s.req(alice, "GET", `/api/v1/scheduled_statuses/${sch.id}`)).status, 404);
    assert.equal((await s.req(alice, "DELETE", `/api/v1/scheduled_statuses/${sch.id}`)).status, 404);
    clock.set(at + MIN);
    await s.drainJobs();
    assert.equal((await statusesOf(s, alice, alice)).some((x) => x.content === "<p>never mind</p>"), false);
  });

  await t.test("a repeated Idempotency-Key returns the same scheduled post, then the status it became", async () => {
    const at = clock.now() + 15 * MIN;
    const send = (text: string) =>
      s.req(alice, "POST", "/api/v1/statuses", { status: text, scheduled_at: iso(at) }, { "idempotency-key": "sched-1" });
    const a = await send("only once");
    const b = await send("only once (retried)");
    assert.equal(a.status, 200);
    assert.deepEqual(b.body, a.body);
    assert.equal((await s.api<any[]>(alice, "GET", "/api/v1/scheduled_statuses")).filter((x) => x.id === a.body.id).length, 1);
    assert.equal((await s.api<any[]>(alice, "GET", "/api/v1/scheduled_statuses")).length, 1);
    clock.set(at);
    await s.drainJobs();
    const posted = (await statusesOf(s, alice, alice)).filter((x) => x.content === "<p>only once</p>");
    assert.equal(posted.length, 1);
    // Within the key's hour the retry gets what its first request made: the status now.
    const c = await send("only once (late retry)");
    assert.deepEqual([c.status, c.body.id, c.body.content], [200, posted[0].id, "<p>only once</p>"]);
    assert.equal((await statusesOf(s, alice, alice)).filter((x) => x.content.startsWith("<p>only once")).length, 1);
  });

  await t.test("a post whose reply target is gone by its time is dropped, as Mastodon's worker does", async () => {
    const parent = await s.api(bob, "POST", "/api/v1/statuses", { status: "short-lived", visibility: "public" });
    const at = clock.now() + 10 * MIN;
    const sch = await s.api(alice, "POST", "/api/v1/statuses", { status: "a late answer", in_reply_to_id: parent.id, scheduled_at: iso(at) });
    await s.api(bob, "DELETE", `/api/v1/statuses/${parent.id}`);
    clock.set(at);
    await s.drainJobs();
    assert.equal((await statusesOf(s, alice, alice)).some((x) => x.content === "<p>a late answer</p>"), false);
    assert.equal((await s.req(alice, "GET", `/api/v1/scheduled_statuses/${sch.id}`)).status, 404);
  });

  await t.test("the list pages by id, newest first, with Mastodon's Link header", async () => {
    const base = clock.now() + DAY;
    const made: string[] = [];
    for (let i = 0; i < 3; i++) made.push((await s.api(alice, "POST", "/api/v1/statuses", { status: `page ${i}`, scheduled_at: iso(base + i * MIN) })).id);
    const r = await s.req(alice, "GET", "/api/v1/scheduled_statuses?limit=2");
    assert.deepEqual(r.body.map((x: any) => x.id), [made[2], made[1]]);
    assert.equal(
      r.headers.get("link"),
      `<${s.url}/api/v1/scheduled_statuses?limit=2&max_id=${made[1]}>; rel="next", <${s.url}/api/v1/scheduled_statuses?limit=2&min_id=${made[2]}>; rel="prev"`,
    );
    assert.deepEqual((await s.api<any[]>(alice, "GET", `/api/v1/scheduled_statuses?limit=2&max_id=${made[1]}`)).map((x) => x.id), [made[0]]);
    assert.deepEqual((await s.api<any[]>(alice, "GET", `/api/v1/scheduled_statuses?min_id=${made[0]}`)).map((x) => x.id), [made[2], made[1]]);
    for (const id of made) await s.api(alice, "DELETE", `/api/v1/scheduled_statuses/${id}`);
  });

  await t.test("params.poll shows a stored poll in Mastodon's shape, whatever else the input held", async () => {
    // The polls route stores {options, expiresIn, multiple, hideTotals}; until polls exist no
    // scheduled post can hold one, so the serializer is given the stored form directly.
    const row = { id: "1", accountId: "2", scheduledAt: Date.UTC(2031, 0, 2, 3, 4, 5), applicationId: null, jobId: null, createdAt: 0 };
    const poll = { options: ["tea", "coffee"], expiresIn: 3600, multiple: true, hideTotals: false };
    const shown = toApiScheduledStatus(s.app, { ...row, params: { text: "tea or coffee?", poll } });
    assert.deepEqual(shown.params.poll, { options: ["tea", "coffee"], expires_in: 3600, multiple: true, hide_totals: false });
    assert.equal(shown.scheduled_at, "2031-01-02T03:04:05.000Z");
    for (const none of [false, true, null, "x", { options: "tea" }]) {
      assert.equal(toApiScheduledStatus(s.app, { ...row, params: { text: "", poll: none } }).params.poll, null, JSON.stringify(none));
    }
  });

  await t.test("scopes: reading needs read:statuses, changing needs write:statuses", async () => {
    const reader = await s.user("reader", { scopes: ["read:statuses"] });
    assert.deepEqual(await s.api(reader, "GET", "/api/v1/scheduled_statuses"), []);
    const sch = await s.api(alice, "POST", "/api/v1/statuses", { status: "scoped", scheduled_at: iso(clock.now() + DAY) });
    for (const method of ["PUT", "DELETE"]) {
      const r = await s.req(reader, method, `/api/v1/scheduled_statuses/${sch.id}`, { scheduled_at: iso(clock.now() + 2 * DAY) });
      assert.deepEqual([r.status, r.body], [403, { error: "This action is outside the authorized scopes" }]);
    }
    const r = await s.req(reader, "POST", "/api/v1/statuses", { status: "x", scheduled_at: iso(clock.now() + DAY) });
    assert.equal(r.status, 403);
    assert.equal((await s.req(null, "GET", "/api/v1/scheduled_statuses")).status, 401);
    await s.api(alice, "DELETE", `/api/v1/scheduled_statuses/${sch.id}`);
  });
});

test("limits: 25 on one day and 300 in all per user, the post being moved not counting against itself", async (t) => {
  const s = await startTestServer();
  t.after(() => s.close());
  const clock = clockOf(s);
  const carol = await s.user("carol");
  const dave = await s.user("dave");
  // Noon UTC, two days ahead.
  const day = Math.floor(clock.now() / DAY) * DAY + 2 * DAY + 12 * 60 * MIN;
  const post = (who: TestUser, at: number) => s.req(who, "POST", "/api/v1/statuses", { status: "limited", scheduled_at: iso(at) });

  for (let i = 0; i < 25; i++) assert.equal((await post(carol, day + i * MIN)).status, 200);
  const over = await post(carol, day + 11 * 60 * MIN); // 23:00 the same UTC day
  assert.deepEqual([over.status, over.body], [422, { error: "Validation failed: You have exceeded the limit of 25 scheduled posts for today" }]);
  // Other days, and other users, have their own 25.
  assert.equal((await post(carol, day + 12 * 60 * MIN)).status, 200); // 00:00 the next day
  assert.equal((await post(dave, day)).status, 200);
  // Moving one of the day's 25 within the day is fine; moving a post of another day into it is not.
  const list = await s.api<any[]>(carol, "GET", "/api/v1/scheduled_statuses?limit=40");
  const ofDay = list.filter((x) => Date.parse(x.scheduled_at) < day + 12 * 60 * MIN);
  const nextDay = list.find((x) => Date.parse(x.scheduled_at) >= day + 12 * 60 * MIN);
  assert.equal(ofDay.length, 25);
  const within = await s.req(carol, "PUT", `/api/v1/scheduled_statuses/${ofDay[0].id}`, { scheduled_at: iso(day + 5 * 60 * MIN) });
  assert.equal(within.status, 200);
  const into = await s.req(carol, "PUT", `/api/v1/scheduled_statuses/${nextDay.id}`, { scheduled_at: iso(day + 6 * 60 * MIN) });
  assert.deepEqual([into.status, into.body], [422, { error: "Validation failed: You have exceeded the limit of 25 scheduled posts for today" }]);

  // Up to 300 in all (fixtures through the same service, 25 a day, one commit), then the total refuses.
  const account = carol.account;
  tx(s.app.db, () => {
    for (let n = 26, d = 2; n < 300; d++) {
      for (let i = 0; i < 25 && n < 300; i++, n++) {
        scheduleStatus(s.app, { account, user: carol.user }, { text: `bulk ${n}`, scheduledAt: iso(day + d * DAY + i * MIN) }, { applicationId: null });
      }
    }
  });
  assert.equal((await s.api<any[]>(carol, "GET", "/api/v1/scheduled_statuses?limit=40")).length, 40);
  const total = await post(carol, day + 40 * DAY);
  assert.deepEqual([total.status, total.body], [422, { error: "Validation failed: You have exceeded the limit of 300 scheduled posts" }]);
  // Too soon and over the total: both messages, in Mastodon's order.
  const two = await post(carol, clock.now() - 1000);
  assert.deepEqual(two.body, {
    error: "Validation failed: Scheduled at date must be in the future, You have exceeded the limit of 300 scheduled posts",
  });
  // At the total a post can still be moved (to a day with room)...
  const moved = await s.req(carol, "PUT", `/api/v1/scheduled_statuses/${nextDay.id}`, { scheduled_at: iso(day + 50 * DAY) });
  assert.equal(moved.status, 200);
  // ...and once one is published (or withdrawn), there is room for one more.
  clock.set(day);
  await s.drainJobs();
  assert.equal((await post(carol, day + 41 * DAY)).status, 200);
  assert.equal((await post(carol, day + 41 * DAY)).status, 422);
});

test("a scheduled poll keeps its options and is posted with them (once polls exist)", async (t) => {
  const s = await startTestServer();
  t.after(() => s.close());
  const clock = clockOf(s);
  const erin = await s.user("erin");
  const poll = { options: ["tea", "coffee"], expires_in: 3600, multiple: true, hide_totals: false };
  const probe = await s.req(erin, "POST", "/api/v1/statuses", { status: "probe", poll });
  if (probe.status !== 200) {
    t.skip(`polls are not available yet (${probe.status} ${JSON.stringify(probe.body)})`);
    return;
  }
  const at = clock.now() + 10 * MIN;
  const sch = await s.api(erin, "POST", "/api/v1/statuses", { status: "tea or coffee?", poll, scheduled_at: iso(at) });
  assert.deepEqual(sch.params.poll, poll);
  clock.set(at);
  await s.drainJobs();
  const [st] = await statusesOf(s, erin, erin);
  assert.equal(st.content, "<p>tea or coffee?</p>");
  assert.deepEqual(st.poll.options.map((o: any) => o.title), ["tea", "coffee"]);
  assert.equal(st.poll.multiple, true);
  // The poll's hour runs from publication, not from scheduling.
  assert.equal(st.poll.expires_at, iso(at + 3600_000));
});
