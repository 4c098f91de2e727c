// roost email-blocks, ip-blocks, tags and domains import as an operator runs them
// (subprocesses): records, tables, --json, refusals with one line on stderr and exit 1, the
// permission of the acting user, the audit entries, and the blocks enforced by a server.
import { test } from "node:test";
import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { roost, tempDir } from "./cli-helpers.ts";

const lines = (s: string) => s.trimEnd().split("\n");
const jsonLines = (s: string) => lines(s).map((l) => JSON.parse(l));

async function instance(t: { after(fn: () => void): void }) {
  const dataDir = join(tempDir(t), "data");
  const dd = ["--data-dir", dataDir];
  assert.equal((await roost(["init", ...dd, "--domain", "cli.example", "--protocol", "http"])).code, 0);
  const made = await Promise.all(
    ["boss:owner", "mia:moderator"].map((x) => {
      const [name, role] = x.split(":");
      return roost(["user", "create", name, ...dd, "--email", `${name}@cli.example`, "--password", "long enough pw", "--role", role]);
    }),
  );
  for (const m of made) assert.equal(m.code, 0, m.stderr);
  return { dataDir, dd };
}

test("roost ip-blocks and email-blocks: add, list, update, test, remove; invalid input and missing permissions exit 1", async (t) => {
  const { dd } = await instance(t);
  const [v4, v6, badCidr, badSeverity, byMod, domain, address, badDomain] = await Promise.all([
    roost(["ip-blocks", "add", "192.0.2.7/24", "--severity", "no_access", "--comment", "bad net", "--json", ...dd]),
    roost(["ip-blocks", "add", "2001:DB8::1", "--severity", "sign_up_block", "--expires-in", "3600", "--json", ...dd]),
    roost(["ip-blocks", "add", "192.0.2.0/33", "--severity", "no_access", ...dd]),
    roost(["ip-blocks", "add", "198.51.100.1", "--severity", "nuke", ...dd]),
    roost(["ip-blocks", "add", "198.51.100.1", "--severity", "no_access", "--as", "mia", ...dd]),
    roost(["email-blocks", "add", "Spam.Example", "--json", ...dd]),
    roost(["email-blocks", "add-address", "J.Doe+x@Mail.Example", "--json", ...dd]),
    roost(["email-blocks", "add", "not a domain", ...dd]),
  ]);
  assert.equal(v4.code, 0, v4.stderr);
  assert.deepEqual([JSON.parse(v4.stdout).ip, JSON.parse(v4.stdout).severity, JSON.parse(v4.stdout).comment], ["192.0.2.0/24", "no_access", "bad net"]);
  assert.equal(v6.code, 0, v6.stderr);
  assert.deepEqual([JSON.parse(v6.stdout).ip, typeof JSON.parse(v6.stdout).expires_at], ["2001:db8::1/128", "string"]);
  assert.deepEqual([badCidr.code, badCidr.stderr], [1, "error: ip is invalid\n"]);
  assert.deepEqual([badSeverity.code, badSeverity.stderr], [1, "error: severity is not included in the list\n"]);
  assert.deepEqual([byMod.code, byMod.stderr], [1, "error: This action is not allowed\n"], "moderators lack manage_blocks");
  assert.equal(JSON.parse(domain.stdout).domain, "spam.example");
  assert.equal(JSON.parse(address.stdout).canonical_email_hash.length, 64);
  assert.deepEqual([badDomain.code, badDomain.stderr], [1, "error: domain is invalid\n"]);

  const [table, listJson, update, badUpdate, hit, miss, addresses, unknown] = await Promise.all([
    roost(["ip-blocks", "list", ...dd]),
    roost(["ip-blocks", "list", "--json", ...dd]),
    roost(["ip-blocks", "update", "192.0.2.0/24", "--severity", "sign_up_requires_approval", "--json", ...dd]),
    roost(["ip-blocks", "update", "2001:db8::1", "--ip", "not an ip", ...dd]),
    roost(["email-blocks", "test", "jdoe@mail.example", "--json", ...dd]),
    roost(["email-blocks", "test", "jane@mail.example", "--json", ...dd]),
    roost(["email-blocks", "list", "--addresses", ...dd]),
    roost(["ip-blocks", "remove", "203.0.113.0/24", ...dd]),
  ]);
  assert.match(lines(table.stdout)[0], /^ID\s+IP\s+SEVERITY\s+EXPIRES\s+CREATED\s+COMMENT$/);
  // The update runs alongside: the list shows the block before or after it.
  assert.ok(lines(table.stdout).some((l) => /\b192\.0\.2\.0\/24\s+(no_access|sign_up_requires_approval)\s+-\s+\S+\s+bad net$/.test(l)), table.stdout);
  assert.deepEqual(jsonLines(listJson.stdout).map((x) => x.ip).sort(), ["192.0.2.0/24", "2001:db8::1/128"]);
  assert.equal(JSON.parse(update.stdout).severity, "sign_up_requires_approval");
  assert.deepEqual([badUpdate.code, badUpdate.stderr], [1, "error: ip is invalid\n"]);
  assert.deepEqual(jsonLines(hit.stdout).map((x) => x.canonical_email_hash), [JSON.parse(address.stdout).canonical_email_hash]);
  assert.deepEqual([miss.code, miss.stdout], [0, ""]);
  assert.match(lines(addresses.stdout)[0], /^ID\s+CANONICAL EMAIL HASH\s+CREATED$/);
  assert.deepEqual([unknown.code, unknown.stderr], [1, "error: Record not found\n"]);

  const [rmIp, rmAddress, rmDomain, audit] = await Promise.all([
    roost(["ip-blocks", "remove", "2001:db8::1", ...dd]),
    roost(["email-blocks", "remove-address", "JDOE@mail.example", ...dd]),
    roost(["email-blocks", "remove", "spam.example", ...dd]),
    roost(["audit", "list", "--json", ...dd]),
  ]);
  assert.deepEqual([rmIp.code, rmIp.stderr], [0, "unblocked 2001:db8::1/128\n"]);
  assert.equal(rmAddress.code, 0, rmAddress.stderr);
  assert.deepEqual([rmDomain.code, rmDomain.stderr], [0, "unblocked spam.example\n"]);
  const entries = jsonLines(audit.stdout);
  const update0 = entries.find((e) => e.action === "update" && e.target_type === "IpBlock");
  assert.ok(update0, audit.stdout);
  assert.deepEqual(update0.changes, { severity: ["no_access", "sign_up_requires_approval"] });
  assert.ok(entries.some((e) => e.action === "create" && e.target_type === "CanonicalEmailBlock"));
  assert.ok(entries.some((e) => e.action === "create" && e.target_type === "EmailDomainBlock"));
});

test("roost domains import: Mastodon's CSV export (with or without its header); covered, invalid rows skipped; bad files exit 1", async (t) => {
  const { dataDir, dd } = await instance(t);
  const csv = join(dataDir, "..", "blocks.csv");
  writeFileSync(
    csv,
    "#domain,#severity,#reject_media,#reject_reports,#public_comment,#obfuscate\n" +
      'bad.example,suspend,true,false,"Spam, lots",false\n' +
      "quiet.example,silence,false,true,,true\n" +
      "sub.bad.example,silence,false,false,,false\n" +
      "not a domain,suspend,false,false,,false\n" +
      "odd.example,banish,false,false,,false\n",
  );
  const r = await roost(["domains", "import", csv, "--json", ...dd]);
  assert.equal(r.code, 0, r.stderr);
  const made = jsonLines(r.stdout);
  assert.deepEqual(
    made.map((b) => [b.domain, b.severity, b.reject_media, b.reject_reports, b.public_comment, b.obfuscate, b.private_comment]),
    [
      ["bad.example", "suspend", true, false, "Spam, lots", false, `Imported from blocks.csv on ${new Date().toISOString().slice(0, 10)}`],
      ["quiet.example", "silence", false, true, null, true, `Imported from blocks.csv on ${new Date().toISOString().slice(0, 10)}`],
    ],
  );
  assert.deepEqual(lines(r.stderr), [
    "skipped sub.bad.example: already covered by the block on bad.example",
    "skipped not a domain: domain is invalid",
    "skipped odd.example: severity banish is not included in the list",
    "imported 2, skipped 3",
  ]);
  const plain = join(dataDir, "..", "plain.csv");
  writeFileSync(plain, "plain.example\nquiet.example\n");
  const headerless = await roost(["domains", "import", plain, ...dd]);
  const [missing, byMod, table] = await Promise.all([
    roost(["domains", "import", join(dataDir, "none.csv"), ...dd]),
    roost(["domains", "import", csv, "--as", "mia", ...dd]),
    roost(["domains", "list", ...dd]),
  ]);
  assert.equal(headerless.code, 0, headerless.stderr);
  assert.match(lines(headerless.stdout)[1], /\bplain\.example\s+suspend\b/, "a missing severity is suspend, as in Mastodon");
  assert.equal(lines(headerless.stderr).at(-1), "imported 1, skipped 1");
  assert.equal(missing.code, 1);
  assert.match(missing.stderr, /^error: cannot read .*none\.csv: ENOENT\n$/);
  assert.deepEqual([byMod.code, byMod.stderr], [1, "error: This action is not allowed\n"]);
  assert.deepEqual(lines(table.stdout).slice(1).map((l) => l.split(/\s+/)[1]), ["plain.example", "quiet.example", "bad.example"]);
});

test("roost tags list / set: flags, letter case only, unknown tags exit 1", async (t) => {
  const { dd } = await instance(t);
  const [help, domainsHelp, empty, unknown, badStatus] = await Promise.all([
    roost(["help"]),
    roost(["help", "domains"]),
    roost(["tags", "list", "--json", ...dd]),
    roost(["tags", "set", "nosuchtag", "--no-usable", ...dd]),
    roost(["tags", "list", "--status", "bogus", ...dd]),
  ]);
  for (const cmd of ["email-blocks", "ip-blocks", "tags", "domains"]) assert.match(help.stdout, new RegExp(`^  ${cmd}\\b`, "m"), cmd);
  assert.match(domainsHelp.stdout, /^  import \[options\] <file>/m);
  assert.deepEqual([empty.code, empty.stdout], [0, ""]);
  assert.deepEqual([unknown.code, unknown.stderr], [1, "error: Record not found\n"]);
  assert.deepEqual([badStatus.code, badStatus.stderr], [1, "error: --status must be one of reviewed, unreviewed, pending_review\n"]);
});
