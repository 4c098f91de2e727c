// Domain blocks and allows through the admin API (endpoints-admin.md §3): permissions, the
// seed's 422 for an allow without a domain, Mastodon's conflict rule, the audit entries, and
// enforcement: the same table federation reads, plus the accounts already known silenced,
// suspended and purged, and freed again when the block is relaxed or lifted.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { findAccountById } from "../../src/storage/accounts.ts";
import { type FakeActor, type FakeRemote, startFakeRemote } from "../helpers/fake-remote.ts";
import { PUBLIC, remoteAccount } from "../helpers/outbox.ts";
import { startTestServer, type TestServer } from "../helpers/server.ts";
import { auditCount, lastAudit, makeStaff, type Staff } from "./admin-helpers.ts";

let s: TestServer;
let r: FakeRemote;
let staff: Staff;

before(async () => {
  s = await startTestServer();
  r = await startFakeRemote();
  staff = await makeStaff(s);
});
after(async () => {
  await s.close();
  await r.close();
});

const BLOCKS = "/api/v1/admin/domain_blocks";
const ALLOWS = "/api/v1/admin/domain_allows";
let n = 0;
/** A signed Create(Note) from `actor` to our shared inbox; the HTTP status. */
async function deliverNote(actor: FakeActor): Promise<number> {
  const i = ++n;
  // It mentions a local user: a post of an account nobody here follows is not kept otherwise.
  const owner = `${s.url}/users/owner`;
  const note = {
    id: `${actor.id}/notes/${i}`,
    type: "Note",
    attributedTo: actor.id,
    content: `<p>@owner note ${i}</p>`,
    to: [PUBLIC],
    cc: [owner],
    tag: [{ type: "Mention", href: owner, name: "@owner" }],
    published: new Date(s.app.now()).toISOString(),
  };
  const res = await r.post(`${s.url}/inbox`, { "@context": "https://www.w3.org/ns/activitystreams", id: `${note.id}/activity`, type: "Create", actor: actor.id, to: [PUBLIC], object: note }, actor);
  await s.drainJobs();
  return res.status;
}
const statusCount = (accountId: string) => Number((s.app.db.prepare("SELECT count(*) AS n FROM statuses WHERE account_id = ?").get(BigInt(accountId)) as { n: bigint }).n);

test("domain blocks: manage_federation only; validation, Mastodon's conflict rule, show, list, update, delete, each audited", async () => {
  // A moderator lacks manage_federation; no token is a 403 too.
  assert.equal((await s.req(staff.mod, "GET", BLOCKS)).status, 403);
  assert.equal((await s.req(staff.plain, "POST", BLOCKS, { domain: "x.example" })).status, 403);
  assert.equal((await s.req(null, "GET", BLOCKS)).status, 403);
  const before = auditCount(s);
  const blank = await s.req(staff.admin, "POST", BLOCKS, {});
  assert.deepEqual([blank.status, blank.body.error], [422, "Validation failed: Domain can't be blank"]);
  assert.equal((await s.req(staff.admin, "POST", BLOCKS, { domain: "not a domain/x" })).status, 422);
  assert.equal((await s.req(staff.admin, "POST", BLOCKS, { domain: "ok.example", severity: "banish" })).status, 422);
  assert.equal((await s.req(staff.admin, "POST", BLOCKS, { domain: "ok.example", public_comment: "x".repeat(5001) })).status, 422);
  assert.equal(auditCount(s), before, "refusals leave no entry");

  const b = await s.api(staff.admin, "POST", BLOCKS, { domain: "Spam.Example", severity: "suspend", reject_reports: "true", private_comment: "seen in #42", public_comment: "spam", obfuscate: true });
  assert.deepEqual(
    { ...b, id: undefined, created_at: undefined },
    { id: undefined, domain: "spam.example", digest: b.digest, created_at: undefined, severity: "suspend", reject_media: false, reject_reports: true, private_comment: "seen in #42", public_comment: "spam", obfuscate: true },
  );
  assert.match(b.digest, /^[0-9a-f]{64}$/);
  assert.match(b.created_at, /^\d{4}-\d\d-\d\dT/);
  const created = lastAudit(s, "create");
  assert.deepEqual([created.targetType, created.targetId, created.humanIdentifier, created.accountId], ["DomainBlock", b.id, "spam.example", staff.admin.id]);
  assert.deepEqual(created.changes.severity, [null, "suspend"]);

  // The same domain, or a subdomain of a stricter block: 422 naming the block in the way.
  for (const domain of ["spam.example", "sub.spam.example"]) {
    const dup = await s.req(staff.admin, "POST", BLOCKS, { domain, severity: "silence" });
    assert.equal(dup.status, 422);
    assert.equal(dup.body.error, "You have already imposed stricter limits on spam.example.");
    assert.equal(dup.body.existing_domain_block.id, b.id);
  }
  // The owner may act too; the list is newest first with Link pagination.
  const c = await s.api(staff.owner, "POST", BLOCKS, { domain: "quiet.example" });
  assert.equal(c.severity, "silence");
  const page = await s.req(staff.admin, "GET", `${BLOCKS}?limit=1`);
  assert.deepEqual(page.body.map((x: any) => x.id), [c.id]);
  assert.match(page.headers.get("link")!, new RegExp(`max_id=${c.id}.*rel="next"`));
  assert.equal((await s.api(staff.admin, "GET", `${BLOCKS}/${b.id}`)).domain, "spam.example");
  assert.equal((await s.req(staff.admin, "GET", `${BLOCKS}/123456`)).status, 404);
  assert.equal((await s.req(staff.admin, "GET", `${BLOCKS}/nope`)).status, 404);

  // PUT changes any field but the domain; bad severities are refused.
  const u = await s.api(staff.admin, "PUT", `${BLOCKS}/${c.id}`, { reject_media: true, public_comment: "noisy", domain: "other.example" });
  assert.deepEqual([u.domain, u.severity, u.reject_media, u.public_comment], ["quiet.example", "silence", true, "noisy"]);
  assert.deepEqual(lastAudit(s, "update").changes, { reject_media: [false, true], public_comment: [null, "noisy"] });
  assert.equal((await s.req(staff.admin, "PUT", `${BLOCKS}/${c.id}`, { severity: "banish" })).status, 422);
  // The public list shows the block as the admin chose (obfuscated name, public comment).
  const pub = await s.api(null, "GET", "/api/v1/instance/domain_blocks");
  assert.ok(pub.some((x: any) => x.domain === "spam.****ple" && x.comment === "spam"), JSON.stringify(pub));

  assert.deepEqual(await s.api(staff.admin, "DELETE", `${BLOCKS}/${c.id}`), {});
  assert.equal((await s.req(staff.admin, "GET", `${BLOCKS}/${c.id}`)).status, 404);
  const destroyed = lastAudit(s, "destroy");
  assert.deepEqual([destroyed.targetType, destroyed.humanIdentifier, destroyed.changes.severity], ["DomainBlock", "quiet.example", ["silence", null]]);
  assert.deepEqual(await s.api(staff.admin, "DELETE", `${BLOCKS}/${b.id}`), {});
});

test("a block is enforced: a suspended domain's deliveries refused, its known accounts silenced, then suspended and purged, and freed when it is lifted", async () => {
  const actor = r.actor("blocky");
  const account = await remoteAccount(s, actor);
  assert.equal(await deliverNote(actor), 202);
  assert.equal(statusCount(account.id), 1, "first note kept");
  const host = new URL(r.origin).hostname;

  // silence: the accounts already known are silenced at once, with the block's time.
  const b = await s.api(staff.admin, "POST", BLOCKS, { domain: host, severity: "silence" });
  assert.ok(findAccountById(s.app.db, account.id)!.silencedAt !== null);
  assert.equal((await s.api(staff.admin, "GET", `/api/v1/admin/accounts/${account.id}`)).silenced, true);

  // suspend: the silence it made is lifted, the account suspended and its data purged by jobs;
  // the signed deliveries of the domain are refused from now on.
  await s.api(staff.admin, "PUT", `${BLOCKS}/${b.id}`, { severity: "suspend" });
  assert.equal(findAccountById(s.app.db, account.id)!.silencedAt, null);
  assert.equal(await deliverNote(actor), 403);
  await s.drainJobs();
  const suspended = findAccountById(s.app.db, account.id)!;
  assert.ok(suspended.suspendedAt !== null);
  assert.equal(statusCount(account.id), 0, "the purge removed its posts");
  assert.equal((await s.api(staff.admin, "GET", `/api/v1/admin/accounts/${account.id}`)).suspended, true);

  // Lifting the block lifts the suspension it made, and the domain is heard again.
  await s.api(staff.admin, "DELETE", `${BLOCKS}/${b.id}`);
  assert.equal(findAccountById(s.app.db, account.id)!.suspendedAt, null);
  assert.equal(await deliverNote(actor), 202);
  assert.equal(statusCount(account.id), 1, "heard again");
});

test("domain allows: a missing or blank domain is a 422 (the seed), an existing one is returned, delete; manage_federation only", async () => {
  assert.equal((await s.req(staff.mod, "POST", ALLOWS, { domain: "friends.example" })).status, 403);
  for (const body of [{}, { domain: "" }, { domain: "   " }]) {
    const res = await s.req(staff.admin, "POST", ALLOWS, body);
    assert.deepEqual([res.status, res.body.error], [422, "Validation failed: Domain can't be blank"], JSON.stringify(body));
  }
  assert.equal((await s.req(staff.admin, "POST", ALLOWS, { domain: "bad domain" })).status, 422);
  const a = await s.api(staff.admin, "POST", ALLOWS, { domain: "Friends.Example" });
  assert.deepEqual(Object.keys(a).sort(), ["created_at", "domain", "id"]);
  assert.equal(a.domain, "friends.example");
  assert.deepEqual(lastAudit(s, "create").changes, { domain: [null, "friends.example"] });
  const count = auditCount(s);
  const again = await s.req(staff.admin, "POST", ALLOWS, { domain: "friends.example" });
  assert.deepEqual([again.status, again.body.id], [200, a.id]);
  assert.equal(auditCount(s), count, "nothing new to log");
  assert.deepEqual((await s.api(staff.admin, "GET", ALLOWS)).map((x: any) => x.id), [a.id]);
  assert.equal((await s.api(staff.admin, "GET", `${ALLOWS}/${a.id}`)).domain, "friends.example");
  assert.deepEqual(await s.api(staff.admin, "DELETE", `${ALLOWS}/${a.id}`), {});
  assert.equal((await s.req(staff.admin, "DELETE", `${ALLOWS}/${a.id}`)).status, 404);
  assert.deepEqual([lastAudit(s, "destroy").targetType, lastAudit(s, "destroy").humanIdentifier], ["DomainAllow", "friends.example"]);
});

test("limited federation: only allowed domains are heard; removing an allow suspends the domain's accounts", async (t) => {
  const ls = await startTestServer({ config: { limitedFederation: true } });
  t.after(() => ls.close());
  const admin = await ls.user("boss", { role: "admin", scopes: ["read", "write", "admin:read", "admin:write"] });
  const host = new URL(r.origin).hostname;
  const actor = r.actor("limited");
  const post = async () => (await r.post(`${ls.url}/inbox`, { "@context": "https://www.w3.org/ns/activitystreams", id: `${actor.id}/follows/${++n}`, type: "Follow", actor: actor.id, object: `${ls.url}/users/boss` }, actor)).status;
  assert.equal(await post(), 403, "not on the list: treated as suspended");
  const a = await ls.api(admin, "POST", ALLOWS, { domain: host });
  assert.equal(await post(), 202);
  await ls.drainJobs();
  const account = (await ls.api(admin, "GET", `/api/v1/admin/accounts?remote=true`)).find((x: any) => x.username === "limited");
  assert.ok(account, "the follower is known");
  await ls.api(admin, "DELETE", `${ALLOWS}/${a.id}`);
  await ls.drainJobs();
  assert.ok(findAccountById(ls.app.db, account.id)!.suspendedAt !== null, "suspended with the allow gone");
  assert.equal(await post(), 403);
});
