// Roles (Mastodon's UserRole and UserRolePolicy): custom roles grant their permissions to the
// API; positions rank people; nobody creates, edits, deletes or assigns a role at or above their
// own, grants permissions they lack, or changes their own role's rank or permissions.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { type Actor, makeActor } from "../../src/admin/actor.ts";
import { changeUserRole, createRole, deleteUserRole, requireRole, updateUserRole } from "../../src/admin/roles.ts";
import { changesOf } from "../../src/admin/audit.ts";
import { computedPermissions, PERMISSIONS, ALL_PERMISSIONS } from "../../src/lib/permissions.ts";
import { ipKey, ipKeyRange } from "../../src/lib/ip-keys.ts";
import { findAccountById } from "../../src/storage/accounts.ts";
import { findUserByAccountId } from "../../src/storage/users.ts";
import { startTestServer, type TestServer, type TestUser } from "../helpers/server.ts";
import { ADMIN_SCOPES, lastAudit, makeStaff, type Staff } from "./admin-helpers.ts";

let s: TestServer;
let staff: Staff;
const actorOf = (u: TestUser): Actor => makeActor(s.app, findUserByAccountId(s.app.db, u.id)!, findAccountById(s.app.db, u.id)!, "cli");

before(async () => {
  s = await startTestServer();
  staff = await makeStaff(s);
});
after(() => s.close());

test("permission arithmetic: administrator implies all; everyone's bits are added", () => {
  assert.equal(computedPermissions(PERMISSIONS.administrator, 0), ALL_PERMISSIONS);
  assert.equal(computedPermissions(PERMISSIONS.manage_reports, PERMISSIONS.invite_users), PERMISSIONS.manage_reports | PERMISSIONS.invite_users);
  assert.deepEqual(changesOf({ a: 1, b: [1], c: null }, { a: 1, b: [2], d: "x" }), { b: [[1], [2]], d: [null, "x"] });
});

test("address keys: IPv4 inside ::ffff:0:0/96, CIDR ranges for both families", () => {
  assert.equal(ipKey("192.0.2.1"), "00000000000000000000ffffc0000201");
  assert.equal(ipKey("::ffff:192.0.2.1"), ipKey("192.0.2.1"));
  assert.equal(ipKey("nope"), null);
  assert.deepEqual(ipKeyRange("192.0.2.0/24"), { first: "00000000000000000000ffffc0000200", last: "00000000000000000000ffffc00002ff" });
  assert.deepEqual(ipKeyRange("2001:db8::/32"), { first: "20010db8000000000000000000000000", last: "20010db8ffffffffffffffffffffffff" });
  assert.equal(ipKeyRange("10.0.0.0/33"), null);
  assert.equal(ipKeyRange("10.0.0/8"), null);
});

test("a custom role's permissions reach the API; deleting it takes them away", async () => {
  const triage = createRole(s.app, actorOf(staff.admin), { name: "Triage", position: 5, permissions: ["manage_reports"], color: "#336699", highlighted: true });
  assert.deepEqual(lastAudit(s, "create").changes.permissions, [null, ["manage_reports"]]);
  const helper = await s.user("helper", { scopes: ADMIN_SCOPES });
  assert.equal((await s.req(helper, "GET", "/api/v1/admin/reports")).status, 403);
  changeUserRole(s.app, actorOf(staff.admin), findAccountById(s.app.db, helper.id)!, triage);
  assert.deepEqual(lastAudit(s, "change_role").changes, { role: ["everyone", "Triage"] });
  assert.equal((await s.req(helper, "GET", "/api/v1/admin/reports")).status, 200);
  assert.equal((await s.req(helper, "GET", "/api/v1/admin/accounts")).status, 403, "manage_users not granted");
  const me = await s.api(helper, "GET", "/api/v1/accounts/verify_credentials");
  assert.deepEqual(me.roles, [{ id: triage.id, name: "Triage", color: "#336699" }]);
  assert.equal(me.role.permissions, String(PERMISSIONS.manage_reports | PERMISSIONS.invite_users));
  // A moderator (position 10) outranks Triage (5): it may act on the helper.
  const act = await s.req(staff.mod, "POST", `/api/v1/admin/accounts/${helper.id}/action`, { type: "none", text: "hi", send_email_notification: false });
  assert.equal(act.status, 200);
  deleteUserRole(s.app, actorOf(staff.admin), triage);
  assert.equal((await s.req(helper, "GET", "/api/v1/admin/reports")).status, 403, "back to the everyone role");
  assert.equal(findUserByAccountId(s.app.db, helper.id)!.roleId, null);
});

test("elevation is refused: positions, permissions, one's own role, assigning upwards", () => {
  const admin = actorOf(staff.admin);
  const mod = actorOf(staff.mod);
  assert.throws(() => createRole(s.app, admin, { name: "Boss", position: 500 }), /Position cannot be higher than your current role/);
  assert.throws(() => createRole(s.app, admin, { name: "God", permissions: ["administrator"] }), /Permissions cannot include permissions/);
  assert.throws(() => createRole(s.app, mod, { name: "X" }), /not allowed/, "moderators lack manage_roles");
  assert.throws(() => createRole(s.app, admin, { name: "Y", permissions: ["fly"] }), /Permissions unknown: fly/);
  assert.throws(() => createRole(s.app, admin, { name: "", position: 1 }), /Name can't be blank/);
  assert.throws(() => createRole(s.app, admin, { name: "Z", color: "red" }), /Color is invalid/);
  // The Admin role may edit Moderator (below it), not Owner, and not its own rank.
  const moderator = requireRole(s.app, "moderator");
  updateUserRole(s.app, admin, moderator, { color: "#00ff00" });
  assert.deepEqual(lastAudit(s, "update").changes, { color: ["", "#00ff00"] });
  assert.throws(() => updateUserRole(s.app, admin, requireRole(s.app, "Owner"), { color: "#000" }), /not allowed/);
  assert.throws(() => updateUserRole(s.app, admin, requireRole(s.app, "Admin"), { position: 99 }), /Position cannot be changed on your own role/);
  updateUserRole(s.app, admin, requireRole(s.app, "Admin"), { color: "#123456" });
  assert.throws(() => deleteUserRole(s.app, admin, requireRole(s.app, "Admin")), /not allowed/, "not one's own role");
  assert.throws(() => deleteUserRole(s.app, actorOf(staff.owner), requireRole(s.app, "everyone")), /not allowed/);
  assert.throws(() => updateUserRole(s.app, actorOf(staff.owner), requireRole(s.app, "everyone"), { permissions: ["manage_users"] }), /not safe/);
  // Assigning: not above oneself, not to someone at or above oneself.
  const target = findAccountById(s.app.db, staff.plain.id)!;
  assert.throws(() => changeUserRole(s.app, admin, target, requireRole(s.app, "Owner")), /Role cannot be higher than your current role/);
  assert.throws(() => changeUserRole(s.app, admin, target, requireRole(s.app, "Admin")), /Role cannot be higher/, "an equal role neither");
  assert.throws(() => changeUserRole(s.app, admin, findAccountById(s.app.db, staff.owner.id)!, requireRole(s.app, "everyone")), /not allowed/);
  changeUserRole(s.app, admin, target, requireRole(s.app, "Moderator"));
  assert.equal(findUserByAccountId(s.app.db, staff.plain.id)!.roleId, "1");
  assert.throws(() => requireRole(s.app, "nope"), /Role not found: nope/);
});
