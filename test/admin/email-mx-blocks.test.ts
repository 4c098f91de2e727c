// The MX check of e-mail domain blocks (Mastodon's EmailMxValidator and
// User#sign_up_email_requires_approval?): a sign-up whose domain's mail is handled by a blocked
// provider is refused (or held, with allow_with_approval); DNS that fails or is slow never
// refuses a sign-up. A tiny DNS server in the test answers the MX queries.
import assert from "node:assert/strict";
import { createSocket, type Socket } from "node:dgram";
import { after, before, test } from "node:test";
import * as dnsPacket from "dns-packet";
import { resetRegistrationRate } from "../../src/services/registration.ts";
import { mxHostsOf } from "../../src/services/email-mx.ts";
import { findUserByEmail } from "../../src/storage/users.ts";
import { appToken } from "../api/accounts-helpers.ts";
import { startTestServer, type TestServer } from "../helpers/server.ts";
import { Browser, PASSWORD, formWithButton } from "../api/oauth-helpers.ts";
import { ADMIN_SCOPES } from "./admin-helpers.ts";

/** name → MX hosts; "servfail" answers SERVFAIL, "silent" never answers. */
const ZONE: Record<string, string[] | "servfail" | "silent"> = {
  "vanity-mail.net": ["MX1.Spamhost.NET.", "mx2.spamhost.net"],
  "careful-vanity.net": ["in.careful-host.org"],
  "honest.net": ["mx.honest-host.org"],
  "broken.net": "servfail",
  "slow.net": "silent",
};

let dns: Socket;
let s: TestServer;
let admin: Awaited<ReturnType<TestServer["user"]>>;
const queries: string[] = [];
before(async () => {
  dns = createSocket("udp4");
  dns.on("message", (msg, peer) => {
    const q = dnsPacket.decode(msg);
    const question = q.questions?.[0];
    if (!question) return;
    queries.push(`${question.type} ${question.name}`);
    const entry = ZONE[question.name.toLowerCase()];
    if (entry === "silent") return;
    const answers =
      Array.isArray(entry) && question.type === "MX"
        ? entry.map((exchange, i) => ({ type: "MX" as const, name: question.name, ttl: 60, data: { preference: 10 * (i + 1), exchange: exchange.replace(/\.$/, "") } }))
        : [];
    const rcode = entry === "servfail" ? "SERVFAIL" : entry === undefined ? "NXDOMAIN" : "NOERROR";
    const reply = dnsPacket.encode({ id: q.id, type: "response", flags: dnsPacket.RECURSION_DESIRED | dnsPacket.RECURSION_AVAILABLE, rcode, questions: q.questions, answers } as dnsPacket.Packet);
    dns.send(reply, peer.port, peer.address);
  });
  await new Promise<void>((resolve) => dns.bind(0, "127.0.0.1", resolve));
  s = await startTestServer({ config: { emailDnsServers: `127.0.0.1:${dns.address().port}`, emailDnsTimeoutMs: 400 } });
  admin = await s.user("boss", { role: "admin", scopes: ADMIN_SCOPES });
  await s.api(admin, "POST", "/api/v1/admin/email_domain_blocks", { domain: "spamhost.net" });
  await s.api(admin, "POST", "/api/v1/admin/email_domain_blocks", { domain: "careful-host.org", allow_with_approval: true });
});
after(async () => {
  await s.close();
  dns.close();
});

const signUp = (name: string, email: string) => {
  resetRegistrationRate(s.app);
  const { token } = appToken(s, ["read", "write"]);
  return s.req(token, "POST", "/api/v1/accounts", { username: name, email, password: "long enough pw", agreement: true, locale: "en" });
};

test("the resolver: MX host names lower-cased without the dot; failures and silence are no hosts", async () => {
  assert.deepEqual(await mxHostsOf(s.app, "vanity-mail.net"), ["mx1.spamhost.net", "mx2.spamhost.net"]);
  assert.deepEqual(await mxHostsOf(s.app, "broken.net"), []);
  assert.deepEqual(await mxHostsOf(s.app, "nowhere.net"), []);
  const t0 = performance.now();
  assert.deepEqual(await mxHostsOf(s.app, "slow.net"), []);
  assert.ok(performance.now() - t0 < 2000, "bounded by emailDnsTimeoutMs");
  const before = queries.length;
  assert.deepEqual(await mxHostsOf(s.app, "mail.example"), [], "reserved names are not looked up");
  assert.equal(queries.length, before);
});

test("sign-ups: refused when the MX hosts are blocked, held with allow_with_approval, fine otherwise and when DNS fails", async () => {
  const refused = await signUp("vanity", "me@vanity-mail.net");
  assert.deepEqual([refused.status, refused.body.error], [422, "Validation failed: Email uses a disallowed e-mail provider"]);
  assert.equal(findUserByEmail(s.app.db, "me@vanity-mail.net"), undefined);

  assert.equal((await signUp("held", "me@careful-vanity.net")).status, 200);
  assert.equal(findUserByEmail(s.app.db, "me@careful-vanity.net")!.approved, false, "waits for a moderator");

  for (const [name, email] of [["honest", "me@honest.net"], ["broken", "me@broken.net"], ["slow", "me@slow.net"], ["unknown", "me@nowhere.net"]]) {
    const r = await signUp(name, email);
    assert.equal(r.status, 200, email);
    assert.equal(findUserByEmail(s.app.db, email)!.approved, true, email);
  }
});

test("an e-mail change meets the sign-up's blocks: the domain's MX hosts and canonical addresses, in settings and on a resent confirmation", async () => {
  await s.api(admin, "POST", "/api/v1/admin/canonical_email_blocks", { email: "blocked.person@honest.net" });
  await s.user("carol");
  const b = new Browser(s.url);
  assert.equal((await b.signIn("carol", PASSWORD)).status, 302);
  const { fields } = formWithButton((await b.fetch("/settings/account")).text, "Change e-mail address");
  const change = (email: string) => b.fetch("/settings/account/email", { form: { ...fields, email, current_password: PASSWORD } });
  assert.match((await change("me@vanity-mail.net")).text, /E-mail uses a disallowed e-mail provider/);
  assert.match((await change("Blocked.Person+new@HONEST.net")).text, /E-mail has already been taken/);
  assert.doesNotMatch((await b.fetch("/settings/account")).text, /Waiting for confirmation/, "nothing pending after a refusal");
  // allow_with_approval holds sign-ups only; an approved account changes its address.
  const held = await change("carol@careful-vanity.net");
  assert.equal(held.location, "/settings/account?notice=email", held.text.match(/<div[^>]*error[^>]*>[^]{0,300}/)?.[0] ?? held.text.slice(0, 3000));
  assert.match((await b.fetch("/settings/account")).text, /Waiting for confirmation of <strong>carol@careful-vanity.net<\/strong>/);

  // POST /api/v1/emails/confirmations with a corrected address is checked the same way.
  const signedUp = await signUp("dave", "dave@honest.net");
  assert.equal(signedUp.status, 200);
  const resend = (email: string) => s.req(signedUp.body.access_token, "POST", "/api/v1/emails/confirmations", { email });
  const mx = await resend("dave@vanity-mail.net");
  assert.deepEqual([mx.status, mx.body.error], [422, "Validation failed: Email uses a disallowed e-mail provider"]);
  const canonical = await resend("blockedperson@honest.net");
  assert.deepEqual([canonical.status, canonical.body.error], [422, "Validation failed: Email has already been taken"]);
  assert.equal((await resend("dave2@honest.net")).status, 200);
  assert.ok(findUserByEmail(s.app.db, "dave2@honest.net"));
});
