// GET /api/v1/admin/accounts and /api/v2/admin/accounts, show, and who may call them
// (endpoints-admin.md §1; Mastodon's AccountPolicy; the seed: a missing role is a refusal).
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { findUserByAccountId } from "../../src/storage/users.ts";
import { recordUserIp } from "../../src/storage/user-ips.ts";
import { startTestServer, type TestServer, type TestUser } from "../helpers/server.ts";
import { makeStaff, type Staff } from "./admin-helpers.ts";

let s: TestServer;
let staff: Staff;
let alice: TestUser, pending: TestUser;

before(async () => {
  s = await startTestServer();
  staff = await makeStaff(s);
  alice = await s.user("alice", { displayName: "Alice Liddell" });
  pending = await s.user("newbie", { approved: false, reason: "I like birds" });
  recordUserIp(s.app.db, alice.user.id, "192.0.2.7", s.app.now());
  recordUserIp(s.app.db, alice.user.id, "2001:db8::1", s.app.now() + 1000);
});
after(() => s.close());

test("the seed's refusal: no token, a token without a role, or without the admin scopes is a clean 403", async () => {
  const none = await s.req(null, "GET", "/api/v1/admin/accounts");
  assert.deepEqual([none.status, none.body], [403, { error: "This action is not allowed" }]);
  const plain = await s.req(staff.plain, "GET", "/api/v1/admin/accounts");
  assert.deepEqual([plain.status, plain.body], [403, { error: "This action is not allowed" }]);
  const noScope = await s.user("modnoscope", { role: "moderator" });
  const scoped = await s.req(noScope, "GET", "/api/v1/admin/accounts");
  assert.deepEqual([scoped.status, scoped.body], [403, { error: "This action is outside the authorized scopes" }]);
  // The granular scope is enough.
  const granular = await s.user("modgranular", { role: "moderator", scopes: ["admin:read:accounts"] });
  assert.equal((await s.req(granular, "GET", "/api/v1/admin/accounts")).status, 200);
  assert.equal((await s.req(granular, "GET", "/api/v1/admin/reports")).status, 403, "admin:read:accounts does not cover reports");
  const bad = await s.req("not-a-token", "GET", "/api/v1/admin/accounts");
  assert.equal(bad.status, 401);
  for (const [path, method] of [
    [`/api/v1/admin/accounts/${alice.id}`, "GET"],
    [`/api/v2/admin/accounts`, "GET"],
    [`/api/v1/admin/accounts/${alice.id}/action`, "POST"],
    [`/api/v1/admin/accounts/${pending.id}/approve`, "POST"],
    [`/api/v1/admin/accounts/${pending.id}/reject`, "POST"],
    [`/api/v1/admin/accounts/${alice.id}/enable`, "POST"],
    [`/api/v1/admin/accounts/${alice.id}/unsilence`, "POST"],
    [`/api/v1/admin/accounts/${alice.id}/unsuspend`, "POST"],
    [`/api/v1/admin/accounts/${alice.id}/unsensitive`, "POST"],
    [`/api/v1/admin/accounts/${alice.id}`, "DELETE"],
  ]) {
    const r = await s.req(staff.plain, method, path, method === "POST" ? { type: "silence" } : undefined);
    assert.deepEqual([path, r.status, r.body], [path, 403, { error: "This action is not allowed" }]);
  }
});

test("moderators, admins and the owner may list and show accounts", async () => {
  for (const who of [staff.mod, staff.admin, staff.owner]) {
    const list = await s.api(who, "GET", "/api/v1/admin/accounts");
    assert.ok(list.some((a: any) => a.id === alice.id), who.username);
    const one = await s.api(who, "GET", `/api/v1/admin/accounts/${alice.id}`);
    assert.equal(one.username, "alice");
  }
});

test("Admin::Account carries the user's moderation facts and the public Account", async () => {
  const a = await s.api(staff.mod, "GET", `/api/v1/admin/accounts/${alice.id}`);
  assert.equal(a.id, alice.id);
  assert.equal(a.domain, null);
  assert.equal(a.email, "alice@example.test");
  assert.equal(a.ip, "2001:db8::1", "the most recent address");
  assert.deepEqual(a.ips.map((x: any) => x.ip), ["2001:db8::1", "192.0.2.7"]);
  assert.deepEqual(a.role, { id: "-99", name: "", permissions: "65536", color: "", highlighted: false });
  assert.deepEqual(
    [a.confirmed, a.approved, a.disabled, a.silenced, a.suspended, a.sensitized],
    [true, true, false, false, false, false],
  );
  assert.equal(a.account.id, alice.id);
  assert.equal(a.account.display_name, "Alice Liddell");
  assert.match(a.created_at, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
  assert.equal("invited_by_account_id" in a, false);
  const m = await s.api(staff.mod, "GET", `/api/v1/admin/accounts/${staff.mod.id}`);
  assert.equal(m.role.name, "Moderator");
  const p = await s.api(staff.mod, "GET", `/api/v1/admin/accounts/${pending.id}`);
  assert.equal(p.approved, false);
  assert.equal(p.invite_request, "I like birds");
  const missing = await s.req(staff.mod, "GET", "/api/v1/admin/accounts/999999999");
  assert.deepEqual([missing.status, missing.body], [404, { error: "Record not found" }]);
  const garbage = await s.req(staff.mod, "GET", "/api/v1/admin/accounts/abc");
  assert.equal(garbage.status, 404);
});

test("v1 filters: local and active by default; pending, username, e-mail, address ranges, staff", async () => {
  const ids = async (q: string) => (await s.api(staff.mod, "GET", `/api/v1/admin/accounts${q}`)).map((a: any) => a.username);
  assert.deepEqual(await ids("?pending=true"), ["newbie"]);
  assert.deepEqual(await ids("?username=ALI"), ["alice"]);
  assert.deepEqual(await ids("?username=@ali"), ["alice"]);
  assert.deepEqual(await ids("?display_name=Alice"), ["alice"]);
  assert.deepEqual(await ids("?email=alice@"), ["alice"]);
  assert.deepEqual(await ids("?ip=192.0.2.0/24"), ["alice"]);
  assert.deepEqual(await ids("?ip=192.0.2.7"), ["alice"]);
  assert.deepEqual(await ids("?ip=2001:db8::/32"), ["alice"]);
  assert.deepEqual(await ids("?ip=198.51.100.0/24"), []);
  assert.deepEqual(await ids("?ip=not-an-address"), []);
  assert.deepEqual((await ids("?staff=true")).sort(), ["admin1", "mod1", "modgranular", "modnoscope", "owner"]);
  assert.deepEqual(await ids("?remote=true"), []);
  // Newest first, limited, with Mastodon's Link header.
  const page = await s.req(staff.mod, "GET", "/api/v1/admin/accounts?limit=2");
  assert.equal(page.body.length, 2);
  assert.ok(BigInt(page.body[0].id) > BigInt(page.body[1].id));
  assert.match(page.headers.get("link") ?? "", /max_id=\d+>; rel="next".*min_id=\d+>; rel="prev"/);
});

test("v2 filters: no defaults, origin/status checked, role_ids and permissions", async () => {
  const names = async (q: string) => (await s.api(staff.mod, "GET", `/api/v2/admin/accounts${q}`)).map((a: any) => a.username);
  assert.ok((await names("")).includes("newbie"), "v2 lists every account without filters");
  assert.deepEqual(await names("?status=pending"), ["newbie"]);
  assert.deepEqual((await names("?role_ids[]=2&role_ids[]=3")).sort(), ["admin1", "owner"]);
  assert.ok((await names("?role_ids[]=-99")).includes("alice"));
  assert.ok(!(await names("?role_ids[]=-99")).includes("owner"));
  assert.ok((await names("?permissions=staff")).includes("mod1"));
  assert.ok(!(await names("?permissions=staff")).includes("alice"));
  assert.deepEqual(await names("?origin=local&username=newb"), ["newbie"]);
  const badOrigin = await s.req(staff.mod, "GET", "/api/v2/admin/accounts?origin=mars");
  assert.deepEqual([badOrigin.status, badOrigin.body], [400, { error: "Unknown origin: mars" }]);
  const badStatus = await s.req(staff.mod, "GET", "/api/v2/admin/accounts?status=happy");
  assert.deepEqual([badStatus.status, badStatus.body], [400, { error: "Unknown status: happy" }]);
  // invited_by: the column is set by sign-ups with an invite (issue 13 part 5, not built yet),
  // so the test sets it the way that feature will.
  s.app.db.prepare("UPDATE users SET invited_by_account_id = ? WHERE id = ?").run(BigInt(alice.id), BigInt(findUserByAccountId(s.app.db, pending.id)!.id));
  assert.deepEqual(await names(`?invited_by=${alice.id}`), ["newbie"]);
  const p = await s.api(staff.mod, "GET", `/api/v1/admin/accounts/${pending.id}`);
  assert.equal(p.invited_by_account_id, alice.id);
});
