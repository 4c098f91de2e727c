// E-mail domain blocks (endpoints-admin.md §4): manage_blocks, validation, the audit entries,
// and enforcement at sign-up: refused from the domain and its subdomains, held for approval
// with allow_with_approval, each attempt counted in the block's history.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { resetRegistrationRate } from "../../src/services/registration.ts";
import { findUserByEmail } from "../../src/storage/users.ts";
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

const PATH = "/api/v1/admin/email_domain_blocks";
const signUp = (name: string, email: string) => {
  resetRegistrationRate(s.app);
  const { token } = appToken(s, ["read", "write"]);
  return s.req(token, "POST", "/api/v1/accounts", { username: name, email, password: "long enough pw", agreement: true, locale: "en" });
};

test("e-mail domain blocks: manage_blocks only; blank, invalid and duplicate domains are 422; list, show, delete, audited", async () => {
  assert.equal((await s.req(staff.mod, "GET", PATH)).status, 403, "moderators lack manage_blocks");
  assert.equal((await s.req(staff.plain, "POST", PATH, { domain: "x.example" })).status, 403);
  const blank = await s.req(staff.admin, "POST", PATH, {});
  assert.deepEqual([blank.status, blank.body.error], [422, "Validation failed: Domain can't be blank"]);
  assert.equal((await s.req(staff.admin, "POST", PATH, { domain: "not a domain" })).status, 422);
  const b = await s.api(staff.admin, "POST", PATH, { domain: "Throwaway.Example" });
  assert.deepEqual([b.domain, b.allow_with_approval, b.history.length], ["throwaway.example", false, 7]);
  assert.deepEqual(b.history[0], { day: String(Math.floor(s.app.now() / 86_400_000) * 86_400), accounts: "0", uses: "0" });
  const dup = await s.req(staff.admin, "POST", PATH, { domain: "throwaway.example" });
  assert.deepEqual([dup.status, dup.body.error], [422, "Validation failed: Domain has already been taken"]);
  assert.deepEqual(lastAudit(s, "create").changes, { domain: [null, "throwaway.example"], allow_with_approval: [null, false] });
  assert.deepEqual((await s.api(staff.admin, "GET", PATH)).map((x: any) => x.id), [b.id]);
  assert.equal((await s.api(staff.admin, "GET", `${PATH}/${b.id}`)).domain, "throwaway.example");
  assert.deepEqual(await s.api(staff.admin, "DELETE", `${PATH}/${b.id}`), {});
  assert.equal((await s.req(staff.admin, "GET", `${PATH}/${b.id}`)).status, 404);
  assert.deepEqual([lastAudit(s, "destroy").targetType, lastAudit(s, "destroy").humanIdentifier], ["EmailDomainBlock", "throwaway.example"]);
});

test("sign-ups: refused from a blocked domain and its subdomains, held for approval with allow_with_approval, counted in the history", async () => {
  const blocked = await s.api(staff.admin, "POST", PATH, { domain: "spam-mail.example" });
  await s.api(staff.admin, "POST", PATH, { domain: "careful.example", allow_with_approval: true });
  for (const [name, email] of [["sp1", "sp1@spam-mail.example"], ["sp2", "sp2@mx.SPAM-mail.example"]]) {
    const r = await signUp(name, email);
    assert.equal(r.status, 422, email);
    assert.equal(r.body.error, "Validation failed: Email uses a disallowed e-mail provider");
    assert.deepEqual(r.body.details.email, [{ error: "ERR_BLOCKED", description: "uses a disallowed e-mail provider" }]);
    assert.equal(findUserByEmail(s.app.db, email), undefined);
  }
  // A look-alike domain is not covered.
  assert.equal((await signUp("fine", "fine@notspam-mail.example")).status, 200);
  const held = await signUp("held", "held@careful.example");
  assert.equal(held.status, 200);
  assert.equal(findUserByEmail(s.app.db, "held@careful.example")!.approved, false, "waits for a moderator");
  const [shown] = (await s.api(staff.admin, "GET", PATH)).filter((x: any) => x.id === blocked.id);
  assert.deepEqual([shown.history[0].uses, shown.history[0].accounts], ["2", "1"], "two attempts from one address");
  await s.api(staff.admin, "DELETE", `${PATH}/${blocked.id}`);
  assert.equal((await signUp("sp3", "sp3@spam-mail.example")).status, 200, "lifted");
});
