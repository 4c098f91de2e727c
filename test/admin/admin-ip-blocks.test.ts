// IP blocks (endpoints-admin.md §4): manage_blocks, CIDR validation (IPv4 and IPv6), PUT's
// lenient update, expiry, the audit entries, and enforcement: no_access refuses every request
// before routing; sign_up_block refuses a sign-up, sign_up_requires_approval holds it.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { operatorActor } from "../../src/admin/listing.ts";
import { blockIp, requireIpBlock, unblockIp } from "../../src/admin/ip-blocks.ts";
import { resetRegistrationRate } from "../../src/services/registration.ts";
import { purgeExpiredIpBlocks } from "../../src/services/ip-blocks.ts";
import { findUserByEmail } from "../../src/storage/users.ts";
import { parseCidr } from "../../src/lib/ip-cidr.ts";
import { insertIpBlock } from "../../src/storage/ip-blocks.ts";
import { appToken } from "../api/accounts-helpers.ts";
import { startTestServer, type TestServer } from "../helpers/server.ts";
import { lastAudit, makeStaff, type Staff } from "./admin-helpers.ts";

let s: TestServer;
let staff: Staff;
before(async () => {
  s = await startTestServer();
  staff = await makeStaff(s);
});
after(() => s.close());

const PATH = "/api/v1/admin/ip_blocks";
// The test server listens on 127.0.0.1 (the IPv6 loopback is blocked too, for the IPv6 path).
const LOOPBACK = ["127.0.0.0/8", "::1/128"];
const signUp = (name: string) => {
  resetRegistrationRate(s.app);
  const { token } = appToken(s, ["read", "write"]);
  return s.req(token, "POST", "/api/v1/accounts", { username: name, email: `${name}@mail.example`, password: "long enough pw", agreement: true, locale: "en" });
};

test("IP blocks: manage_blocks; CIDRs normalised, invalid ones 422; list, show, PUT, delete, audited", async () => {
  assert.equal((await s.req(staff.mod, "GET", PATH)).status, 403, "moderators lack manage_blocks");
  assert.equal((await s.req(staff.plain, "POST", PATH, { ip: "192.0.2.1", severity: "no_access" })).status, 403);
  for (const [ip, severity, error] of [
    [undefined, "no_access", "Validation failed: Ip can't be blank"],
    ["192.0.2.1", undefined, "Validation failed: Severity can't be blank"],
    ["192.0.2.0/33", "no_access", "Validation failed: Ip is invalid"],
    ["300.1.1.1", "no_access", "Validation failed: Ip is invalid"],
    ["10.1", "no_access", "Validation failed: Ip is invalid"],
    ["2001:db8::/129", "no_access", "Validation failed: Ip is invalid"],
    ["evil.example", "no_access", "Validation failed: Ip is invalid"],
    ["192.0.2.1", "nuke", "Validation failed: Severity is not included in the list"],
  ] as const) {
    const r = await s.req(staff.admin, "POST", PATH, { ip, severity });
    assert.deepEqual([r.status, r.body.error], [422, error], `${ip} ${severity}`);
  }
  const v4 = await s.api(staff.admin, "POST", PATH, { ip: "192.0.2.77/24", severity: "sign_up_block", comment: " spam wave ", expires_in: 3600 });
  assert.deepEqual([v4.ip, v4.severity, v4.comment], ["192.0.2.0/24", "sign_up_block", "spam wave"]);
  const inAnHour = Date.parse(v4.expires_at) - Date.parse(v4.created_at);
  assert.ok(inAnHour >= 3600_000 && inAnHour < 3601_000, String(inAnHour));
  const v6 = await s.api(staff.owner, "POST", PATH, { ip: "2001:DB8::1", severity: "no_access" });
  assert.deepEqual([v6.ip, v6.expires_at, v6.comment], ["2001:db8::1/128", null, ""]);
  const dup = await s.req(staff.admin, "POST", PATH, { ip: "192.0.2.0/24", severity: "no_access" });
  assert.deepEqual([dup.status, dup.body.error], [422, "Validation failed: Ip has already been taken"]);
  const created = lastAudit(s, "create");
  assert.deepEqual([created.targetType, created.humanIdentifier, created.changes], [
    "IpBlock",
    "2001:db8::1/128",
    { ip: [null, "2001:db8::1/128"], severity: [null, "no_access"], comment: [null, ""] },
  ]);
  assert.deepEqual((await s.api(staff.admin, "GET", PATH)).map((x: any) => x.ip), ["2001:db8::1/128", "192.0.2.0/24"]);
  assert.equal((await s.api(staff.admin, "GET", `${PATH}/${v4.id}`)).ip, "192.0.2.0/24");

  const put = await s.api(staff.admin, "PUT", `${PATH}/${v4.id}`, { severity: "sign_up_requires_approval", expires_in: "" });
  assert.deepEqual([put.ip, put.severity, put.expires_at, put.comment], ["192.0.2.0/24", "sign_up_requires_approval", null, "spam wave"]);
  assert.deepEqual(lastAudit(s, "update").changes, { severity: ["sign_up_block", "sign_up_requires_approval"], expires_at: [v4.expires_at, null] });
  // Mastodon's update saves nothing when a value is invalid and answers with the record as it was.
  for (const body of [{ ip: "not an ip" }, { severity: "nuke" }, { ip: "2001:db8::1", severity: "no_access" }]) {
    const same = await s.api(staff.admin, "PUT", `${PATH}/${v4.id}`, body);
    assert.deepEqual([same.ip, same.severity], ["192.0.2.0/24", "sign_up_requires_approval"], JSON.stringify(body));
  }
  for (const id of ["999", "abc"]) {
    assert.equal((await s.req(staff.admin, "GET", `${PATH}/${id}`)).status, 404);
    assert.equal((await s.req(staff.admin, "PUT", `${PATH}/${id}`, { comment: "x" })).status, 404);
    assert.equal((await s.req(staff.admin, "DELETE", `${PATH}/${id}`)).status, 404);
  }
  assert.deepEqual(await s.api(staff.admin, "DELETE", `${PATH}/${v4.id}`), {});
  assert.deepEqual([lastAudit(s, "destroy").humanIdentifier, lastAudit(s, "destroy").changes.severity], ["192.0.2.0/24", ["sign_up_requires_approval", null]]);
  await s.api(staff.admin, "DELETE", `${PATH}/${v6.id}`);
});

test("sign-ups from a sign_up_requires_approval range wait for a moderator; sign_up_block refuses them", async () => {
  const held = await Promise.all(LOOPBACK.map((ip) => s.api(staff.admin, "POST", PATH, { ip, severity: "sign_up_requires_approval" })));
  assert.equal((await signUp("waiting")).status, 200);
  assert.equal(findUserByEmail(s.app.db, "waiting@mail.example")!.approved, false);
  const blocked = await Promise.all(held.map((b) => s.api(staff.admin, "PUT", `${PATH}/${b.id}`, { severity: "sign_up_block" })));
  const r = await signUp("refused");
  assert.deepEqual([r.status, r.body.error], [403, "This action is not allowed"]);
  assert.equal(findUserByEmail(s.app.db, "refused@mail.example"), undefined);
  // An expired block no longer applies.
  await Promise.all(blocked.map((b) => s.api(staff.admin, "PUT", `${PATH}/${b.id}`, { expires_in: 60 })));
  const realNow = s.app.now;
  s.app.now = () => realNow() + 61_000;
  try {
    assert.equal((await signUp("later")).status, 200);
    assert.equal(findUserByEmail(s.app.db, "later@mail.example")!.approved, true);
    // The periodic cleanup removes them (Mastodon's IpCleanupScheduler).
    purgeExpiredIpBlocks(s.app);
    assert.deepEqual(await s.api(staff.admin, "GET", PATH), []);
  } finally {
    s.app.now = realNow;
  }
});

test("no_access: every request from the range is refused before routing (API, pages, unknown paths) until lifted", async () => {
  const before = await s.req(null, "GET", "/api/v1/instance");
  assert.equal(before.status, 200);
  // Made from outside HTTP (the CLI's way): the first would refuse the request making the second.
  const actor = operatorActor(s.app, undefined);
  const blocks = LOOPBACK.map((ip) => blockIp(s.app, actor, { ip, severity: "no_access", comment: "lockout" }));
  for (const [token, path] of [[null, "/api/v1/instance"], [staff.admin, PATH], [null, "/about"], [null, "/no/such/path"], [null, "/.well-known/nodeinfo"]] as const) {
    const r = await s.req(token, "GET", path);
    assert.equal(r.status, 403, path);
  }
  assert.deepEqual((await s.req(null, "GET", "/api/v1/instance")).body, { error: "This action is not allowed" });
  // Lifted: the next request goes through again.
  for (const b of blocks) unblockIp(s.app, actor, requireIpBlock(s.app, b.ip, true));
  assert.equal((await s.req(null, "GET", "/api/v1/instance")).status, 200);
  // A block written by another process (roost ip-blocks add while serve runs) applies within seconds.
  const cidr = parseCidr("127.0.0.1")!;
  const now = s.app.now();
  insertIpBlock(s.app.db, { id: s.app.ids.next(), ip: cidr.cidr, firstKey: cidr.first, lastKey: cidr.last, severity: "no_access", comment: "", expiresAt: null, createdAt: now, updatedAt: now });
  const realNow = s.app.now;
  s.app.now = () => realNow() + 5_000;
  try {
    const r = await s.req(null, "GET", "/api/v1/instance");
    assert.equal(r.status, 403);
  } finally {
    s.app.now = realNow;
    unblockIp(s.app, actor, requireIpBlock(s.app, "127.0.0.1", true));
  }
});
