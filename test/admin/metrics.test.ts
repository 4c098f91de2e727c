// POST /api/v1/admin/measures, /dimensions and /retention (issue 13 part 2) against rows
// seeded on known days through the services and the API, with the app's clock set to them.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { parseApNote } from "../../src/federation/parse/note.ts";
import { createRemoteStatus } from "../../src/federation/remote-statuses.ts";
import { authorizeFollowRequest, followAccount } from "../../src/services/follows.ts";
import { findAccountById } from "../../src/storage/accounts.ts";
import type { Account } from "../../src/storage/accounts.ts";
import { ROOST_VERSION } from "../../src/version.ts";
import { noteDoc } from "../federation/remote-status-helpers.ts";
import { type FakeRemote, startFakeRemote } from "../helpers/fake-remote.ts";
import { remoteAccount } from "../helpers/outbox.ts";
import { startTestServer, type TestServer, type TestUser } from "../helpers/server.ts";
import { ADMIN_SCOPES } from "./admin-helpers.ts";

const D = (day: number, hour = 12) => Date.UTC(2026, 0, day, hour);
const iso = (day: number) => `2026-01-${String(day).padStart(2, "0")}T00:00:00Z`;

let s: TestServer;
let remote: FakeRemote;
let owner: TestUser, plain: TestUser, alice: TestUser, bob: TestUser, carol: TestUser;
let rita: Account;
let tagId: string;
let domain: string;

const at = (ms: number) => (s.app.now = () => ms);

/** Signs in through the web form (sets current_sign_in_at, as a browser would). */
async function webSignIn(login: string): Promise<void> {
  const page = await fetch(`${s.url}/auth/sign_in`);
  const cookie = page.headers.getSetCookie().map((c) => c.split(";")[0]).join("; ");
  const token = /name="authenticity_token" value="([^"]+)"/.exec(await page.text())![1];
  const res = await fetch(`${s.url}/auth/sign_in`, {
    method: "POST",
    headers: { cookie, "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({ authenticity_token: token, login, password: "correct horse battery" }),
    redirect: "manual",
  });
  assert.equal(res.status, 302);
}

before(async () => {
  s = await startTestServer();
  remote = await startFakeRemote();
  // Jan 1: staff.
  at(D(1));
  owner = await s.user("owner", { role: "owner", scopes: ADMIN_SCOPES });
  plain = await s.user("plain", { scopes: ADMIN_SCOPES });
  // Jan 5: alice (German) and bob sign up; bob posts, alice favourites and boosts it, and both
  // use the tag; alice reports bob; rita of another server is met and posts with the tag.
  at(D(5));
  alice = await s.user("alice", { locale: "de" });
  bob = await s.user("bob");
  await webSignIn("alice");
  const post = await s.api(bob, "POST", "/api/v1/statuses", { status: "#roosting at home", language: "en" });
  await s.api(bob, "POST", "/api/v1/statuses", { status: "talking to myself", in_reply_to_id: post.id });
  await s.api(alice, "POST", `/api/v1/statuses/${post.id}/favourite`);
  await s.api(alice, "POST", `/api/v1/statuses/${post.id}/reblog`);
  await s.api(alice, "POST", "/api/v1/statuses", { status: "#roosting too", language: "de" });
  const report = await s.api(alice, "POST", "/api/v1/reports", { account_id: bob.id, comment: "meh" });
  rita = await remoteAccount(s, remote.actor("rita"));
  domain = rita.domain!;
  const tagged = { tag: [{ type: "Hashtag", name: "#roosting", href: `${remote.origin}/tags/roosting` }] };
  await createRemoteStatus(s.app, parseApNote(noteDoc(remote.actor("rita"), { published: new Date(D(5)).toISOString(), ...tagged })), rita, { fetched: true });
  // Jan 6: carol signs up and replies to bob; alice is active, follows carol and rita (who
  // accepts), rita follows alice and posts again; the report is resolved; alice reports rita.
  at(D(6));
  carol = await s.user("carol");
  await s.api(carol, "POST", "/api/v1/statuses", { status: "@bob welcome", in_reply_to_id: post.id });
  await s.api(alice, "POST", `/api/v1/accounts/${carol.id}/follow`);
  const aliceAccount = findAccountById(s.app.db, alice.id)!;
  followAccount(s.app, aliceAccount, rita, {});
  authorizeFollowRequest(s.app, rita, alice.id);
  followAccount(s.app, rita, aliceAccount, {});
  await createRemoteStatus(s.app, parseApNote(noteDoc(remote.actor("rita"), { published: new Date(D(6)).toISOString() })), rita, { fetched: true });
  await s.api(owner, "POST", `/api/v1/admin/reports/${report.id}/resolve`);
  await s.api(alice, "POST", "/api/v1/reports", { account_id: rita.id, comment: "spam" });
  tagId = (await s.api(alice, "GET", "/api/v1/tags/roosting")).id;
  // Queries are made later; the staff's own requests land on Jan 20.
  at(D(20));
});

after(async () => {
  await s.close();
  await remote.close();
});

const measures = (body: Record<string, unknown>) => s.api(owner, "POST", "/api/v1/admin/measures", { start_at: "2026-01-04", end_at: "2026-01-06", ...body });
const values = (m: any) => m.data.map((d: any) => d.value);

test("measures of the instance: each key with its daily values, total and previous_total as strings", async () => {
  const keys = ["new_users", "active_users", "interactions", "opened_reports", "resolved_reports", "no_such_key"];
  const res = await measures({ keys });
  assert.deepEqual(res.map((m: any) => m.key), keys.slice(0, 5), "unknown keys are skipped");
  const by = Object.fromEntries(res.map((m: any) => [m.key, m]));
  assert.deepEqual(by.new_users, {
    key: "new_users",
    unit: null,
    total: "3",
    previous_total: "2",
    data: [
      { date: iso(4), value: "0" },
      { date: iso(5), value: "2" },
      { date: iso(6), value: "1" },
    ],
  });
  // alice and bob on the 5th; alice, carol and the owner (resolving a report) on the 6th.
  assert.deepEqual([values(by.active_users), by.active_users.total, by.active_users.previous_total], [["0", "2", "3"], "4", "0"]);
  // 5th: a favourite and a boost (bob's reply to himself does not count); 6th: carol's reply, two follows.
  assert.deepEqual([values(by.interactions), by.interactions.total, by.interactions.previous_total], [["0", "2", "3"], "5", "0"]);
  assert.deepEqual([values(by.opened_reports), by.opened_reports.total], [["0", "1", "1"], "2"]);
  assert.deepEqual([values(by.resolved_reports), by.resolved_reports.total], [["0", "0", "1"], "1"]);
  assert.ok(!("human_value" in by.new_users));
});

test("tag measures need tag[id]: uses, accounts and servers per day", async () => {
  const res = await measures({ keys: ["tag_uses", "tag_accounts", "tag_servers"], tag_uses: { id: tagId }, tag_accounts: { id: tagId }, tag_servers: { id: tagId } });
  const by = Object.fromEntries(res.map((m: any) => [m.key, m]));
  assert.deepEqual([values(by.tag_uses), by.tag_uses.total], [["0", "3", "0"], "3"]);
  assert.deepEqual([values(by.tag_accounts), by.tag_accounts.total], [["0", "3", "0"], "3"]);
  // Local posts have no server (Mastodon counts distinct domains): rita's only.
  assert.deepEqual([values(by.tag_servers), by.tag_servers.total, by.tag_servers.previous_total], [["0", "1", "0"], "1", "0"]);

  assert.equal((await s.req(owner, "POST", "/api/v1/admin/measures", { keys: ["tag_uses"], start_at: "2026-01-04", end_at: "2026-01-06" })).status, 400);
  const unknown = await s.req(owner, "POST", "/api/v1/admin/measures", { keys: ["tag_uses"], tag_uses: { id: "999999" }, start_at: "2026-01-04", end_at: "2026-01-06" });
  assert.deepEqual([unknown.status, unknown.body], [404, { error: "Record not found" }]);
});

test("instance measures need instance_*[domain]: totals of all time without previous_total, new rows per day", async () => {
  const keys = ["instance_accounts", "instance_statuses", "instance_follows", "instance_followers", "instance_reports", "instance_media_attachments"];
  const body: Record<string, unknown> = { keys };
  for (const k of keys) body[k] = { domain: domain.toUpperCase() };
  const by = Object.fromEntries((await measures(body)).map((m: any) => [m.key, m]));
  assert.deepEqual([values(by.instance_accounts), by.instance_accounts.total, "previous_total" in by.instance_accounts], [["0", "1", "0"], "1", false]);
  assert.deepEqual([values(by.instance_statuses), by.instance_statuses.total], [["0", "1", "1"], "2"]);
  assert.deepEqual([values(by.instance_follows), by.instance_follows.total], [["0", "0", "1"], "1"]);
  assert.deepEqual([values(by.instance_followers), by.instance_followers.total], [["0", "0", "1"], "1"]);
  assert.deepEqual([values(by.instance_reports), by.instance_reports.total], [["0", "0", "1"], "1"]);
  assert.deepEqual(
    [by.instance_media_attachments.unit, by.instance_media_attachments.total, by.instance_media_attachments.human_value],
    ["bytes", "0", "0 Bytes"],
  );
  const missing = await s.req(owner, "POST", "/api/v1/admin/measures", { keys: ["instance_statuses"], start_at: "2026-01-04", end_at: "2026-01-06" });
  assert.deepEqual([missing.status, missing.body.error], [400, "param is missing or the value is empty: instance_statuses"]);
});

test("dimensions: languages, sources, servers, space and versions, tag and instance breakdowns; limit", async () => {
  const keys = ["languages", "sources", "servers", "space_usage", "software_versions", "tag_servers", "tag_languages", "instance_accounts", "instance_languages", "bogus"];
  const res = await s.api(owner, "POST", "/api/v1/admin/dimensions", {
    keys,
    start_at: "2026-01-04",
    end_at: "2026-01-06",
    tag_servers: { id: tagId },
    tag_languages: { id: tagId },
    instance_accounts: { domain },
    instance_languages: { domain },
  });
  assert.deepEqual(res.map((d: any) => d.key), keys.slice(0, 9));
  const by = Object.fromEntries(res.map((d: any) => [d.key, d.data]));
  assert.deepEqual(by.languages, [{ key: "de", human_key: "German", value: "1" }]);
  assert.deepEqual(by.sources, [{ key: "web", human_key: "Website", value: "3" }]);
  // 5th: bob's two, alice's boost and post; 6th: carol's reply. rita: two.
  assert.deepEqual(by.servers, [
    { key: s.app.config.domain, human_key: s.app.config.domain, value: "5" },
    { key: domain, human_key: domain, value: "2" },
  ]);
  assert.deepEqual(by.space_usage.map((x: any) => [x.key, x.unit]), [["sqlite", "bytes"], ["media", "bytes"]]);
  assert.ok(Number(by.space_usage[0].value) > 100_000 && /^\d+(\.\d+)? (KB|MB)$/.test(by.space_usage[0].human_value), JSON.stringify(by.space_usage));
  assert.deepEqual(by.software_versions[0], { key: "roost", human_key: "roost", value: ROOST_VERSION, human_value: ROOST_VERSION });
  assert.deepEqual(by.tag_servers, [
    { key: s.app.config.domain, human_key: s.app.config.domain, value: "2" },
    { key: domain, human_key: domain, value: "1" },
  ]);
  assert.deepEqual(by.tag_languages.map((x: any) => [x.key, x.human_key, x.value]), [["de", "German", "1"], ["en", "English", "1"], ["und", "Unknown", "1"]]);
  assert.deepEqual(by.instance_accounts, [{ key: "rita", human_key: "rita", value: "1" }]);
  assert.equal(by.instance_languages.reduce((n: number, x: any) => n + Number(x.value), 0), 2);

  const limited = await s.api(owner, "POST", "/api/v1/admin/dimensions", { keys: ["servers"], start_at: "2026-01-04", end_at: "2026-01-06", limit: 1 });
  assert.deepEqual(limited[0].data.map((x: any) => x.value), ["5"]);
});

test("retention: daily cohorts with the share still active in each later day; monthly", async () => {
  const res = await s.api(owner, "POST", "/api/v1/admin/retention", { start_at: "2026-01-04", end_at: "2026-01-06", frequency: "day" });
  assert.deepEqual(res, [
    { period: iso(4), frequency: "day", data: [iso(4), iso(5), iso(6)].map((date) => ({ date, rate: 0, value: "0" })) },
    {
      period: iso(5),
      frequency: "day",
      data: [
        { date: iso(5), rate: 1, value: "2" },
        { date: iso(6), rate: 0.5, value: "1" },
      ],
    },
    { period: iso(6), frequency: "day", data: [{ date: iso(6), rate: 1, value: "1" }] },
  ]);
  const monthly = await s.api(owner, "POST", "/api/v1/admin/retention", { start_at: "2026-01-15", end_at: "2026-01-31", frequency: "month" });
  // owner (active on the 20th), alice, bob, carol of the five who signed up in January.
  assert.deepEqual(monthly, [{ period: "2026-01-01T00:00:00Z", frequency: "month", data: [{ date: "2026-01-01T00:00:00Z", rate: 4 / 5, value: "4" }] }]);
  const other = await s.api(owner, "POST", "/api/v1/admin/retention", { start_at: "2026-01-06", end_at: "2026-01-06", frequency: "week" });
  assert.equal(other[0].frequency, "day", "an unknown frequency is a day, as in Mastodon");
});

test("permission view_dashboard and admin:read; bad dates are 400/422", async () => {
  for (const path of ["/api/v1/admin/measures", "/api/v1/admin/dimensions", "/api/v1/admin/retention"]) {
    const body = { keys: ["new_users"], start_at: "2026-01-04", end_at: "2026-01-06" };
    const refused = await s.req(plain, "POST", path, body);
    assert.deepEqual([refused.status, refused.body], [403, { error: "This action is not allowed" }], path);
    assert.equal((await s.req(null, "POST", path, body)).status, 403, path);
    assert.equal((await s.req(alice, "POST", path, body)).status, 403, `${path} without admin:read`);
    const missing = await s.req(owner, "POST", path, { keys: ["new_users"], end_at: "2026-01-06" });
    assert.deepEqual([missing.status, missing.body.error], [400, "param is missing or the value is empty: start_at"], path);
    for (const bad of ["yesterday", "2026-02-30", "2026-13-01", "99999-01-01", "2026-01-01T99"]) {
      const r = await s.req(owner, "POST", path, { keys: ["new_users"], start_at: bad, end_at: "2026-01-06" });
      assert.equal(r.status, 422, `${path} ${bad}: ${r.text}`);
    }
    const long = await s.req(owner, "POST", path, { keys: ["new_users"], start_at: "1970-01-01", end_at: "2026-01-06" });
    assert.equal(long.status, 422, path);
  }
  const backwards = await measures({ keys: ["new_users"], start_at: "2026-01-06", end_at: "2026-01-04" });
  assert.deepEqual(backwards[0].data, [], "an end before the start has no days");
  const form = new URLSearchParams([["keys[]", "new_users"], ["start_at", "2026-01-05T23:59:59+02:00"], ["end_at", "2026-01-05"]]);
  const viaForm = await s.api(owner, "POST", "/api/v1/admin/measures", form);
  assert.deepEqual(viaForm[0].data, [{ date: iso(5), value: "2" }], "the time part is ignored");
});
