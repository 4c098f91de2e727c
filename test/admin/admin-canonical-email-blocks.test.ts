// Canonical e-mail blocks (endpoints-admin.md §4): manage_blocks, the hash Mastodon computes,
// /test never failing unhandled, the audit entries, and enforcement at sign-up.
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { after, before, test } from "node:test";
import { canonicalEmail } from "../../src/lib/canonical-email.ts";
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

const PATH = "/api/v1/admin/canonical_email_blocks";
const sha = (x: string) => createHash("sha256").update(x).digest("hex");
const signUp = (name: string, email: string) => {
  resetRegistrationRate(s.app);
  const { token } = appToken(s, ["read", "write"]);
  return s.req(token, "POST", "/api/v1/accounts", { username: name, email, password: "long enough pw", agreement: true, locale: "en" });
};

test("canonical form: Mastodon's CanonicalEmail (lower case, no dots, no +tag, every provider)", () => {
  assert.equal(canonicalEmail("J.Doe+Spam@Example.COM"), "jdoe@example.com");
  assert.equal(canonicalEmail("a.b.c+x+y@host.example"), "abc@host.example");
  assert.equal(canonicalEmail("no-at-sign"), "no-at-sign@");
});

test("canonical e-mail blocks: manage_blocks for every role; create by address or hash, 422s, list, show, delete, audited", async () => {
  assert.equal((await s.req(staff.mod, "GET", PATH)).status, 403, "moderators lack manage_blocks");
  assert.equal((await s.req(staff.plain, "POST", PATH, { email: "x@y.example" })).status, 403);
  assert.equal((await s.req(staff.plain, "POST", `${PATH}/test`, { email: "x@y.example" })).status, 403);
  const blank = await s.req(staff.admin, "POST", PATH, {});
  assert.deepEqual([blank.status, blank.body.error], [422, "Validation failed: Canonical email hash can't be blank"]);
  assert.equal((await s.req(staff.admin, "POST", PATH, { canonical_email_hash: "not-a-hash" })).status, 422);
  const b = await s.api(staff.admin, "POST", PATH, { email: "Spam.Mer+one@Mail.Example" });
  assert.deepEqual(b, { id: b.id, canonical_email_hash: sha("spammer@mail.example") });
  const dup = await s.req(staff.owner, "POST", PATH, { canonical_email_hash: sha("spammer@mail.example") });
  assert.deepEqual([dup.status, dup.body.error], [422, "Validation failed: Canonical email hash has already been taken"]);
  const byHash = await s.api(staff.owner, "POST", PATH, { canonical_email_hash: sha("other@mail.example").toUpperCase() });
  assert.equal(byHash.canonical_email_hash, sha("other@mail.example"));
  const entry = lastAudit(s, "create");
  assert.deepEqual([entry.targetType, entry.targetId, entry.changes], ["CanonicalEmailBlock", byHash.id, { canonical_email_hash: [null, sha("other@mail.example")] }]);
  assert.deepEqual((await s.api(staff.admin, "GET", PATH)).map((x: any) => x.id), [byHash.id, b.id]);
  assert.equal((await s.api(staff.admin, "GET", `${PATH}/${b.id}`)).canonical_email_hash, sha("spammer@mail.example"));
  for (const id of ["999", "abc", "-1"]) assert.equal((await s.req(staff.admin, "GET", `${PATH}/${id}`)).status, 404, id);
  assert.deepEqual(await s.api(staff.admin, "DELETE", `${PATH}/${byHash.id}`), {});
  assert.equal((await s.req(staff.admin, "DELETE", `${PATH}/${byHash.id}`)).status, 404);
  assert.deepEqual(lastAudit(s, "destroy").changes, { canonical_email_hash: [sha("other@mail.example"), null] });
});

test("POST /test: the blocks an address meets, [] for others; a missing or odd email is a handled 4xx or []", async () => {
  const b = await s.api(staff.admin, "POST", PATH, { email: "tester@probe.example" });
  assert.deepEqual(await s.api(staff.admin, "POST", `${PATH}/test`, { email: "T.E.S.T.E.R+x@PROBE.example" }), [{ id: b.id, canonical_email_hash: b.canonical_email_hash }]);
  assert.deepEqual(await s.api(staff.admin, "POST", `${PATH}/test`, { email: "tester@elsewhere.example" }), []);
  const missing = await s.req(staff.admin, "POST", `${PATH}/test`, {});
  assert.deepEqual([missing.status, missing.body.error], [400, "param is missing or the value is empty: email"]);
  for (const email of ["", "no at sign", "@", "x".repeat(100_000), ["a@b.example"], { a: 1 }]) {
    const r = await s.req(staff.admin, "POST", `${PATH}/test`, { email });
    assert.ok(r.status === 200 || r.status === 400, `${JSON.stringify(email).slice(0, 20)} → ${r.status}`);
  }
});

test("sign-ups: refused from a blocked address however it is spelled; others go through", async () => {
  const b = await s.api(staff.admin, "POST", PATH, { email: "banned@mail.example" });
  for (const [name, email] of [["ban1", "banned@mail.example"], ["ban2", "Ban.Ned+new@MAIL.example"]]) {
    const r = await signUp(name, email);
    assert.equal(r.status, 422, email);
    assert.equal(r.body.error, "Validation failed: Email has already been taken", "as Mastodon words it");
    assert.equal(findUserByEmail(s.app.db, email), undefined);
  }
  assert.equal((await signUp("okay", "banned@other.example")).status, 200, "another domain is another address");
  await s.api(staff.admin, "DELETE", `${PATH}/${b.id}`);
  assert.equal((await signUp("ban3", "banned@mail.example")).status, 200, "lifted");
});
