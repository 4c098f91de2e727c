// roost domains as an operator runs it (subprocesses): blocks with their options, the conflict
// rule, changes of an existing block, the allow-list, refusals and the audit entries.
import { test } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import { roost, tempDir } from "./cli-helpers.ts";

const lines = (s: string) => s.trimEnd().split("\n");
const jsonLines = (s: string) => lines(s).map((l) => JSON.parse(l));

test("roost domains block / unblock / list / allow / disallow: records, tables, --json, refusals and exit codes", async (t) => {
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

  const block = await roost(["domains", "block", "Spam.Example", "--severity", "suspend", "--reject-reports", "--public-comment", "spam", "--obfuscate", "--json", ...dd]);
  assert.equal(block.code, 0, block.stderr);
  const b = JSON.parse(block.stdout);
  assert.deepEqual(
    [b.domain, b.severity, b.reject_media, b.reject_reports, b.obfuscate, b.public_comment, b.private_comment],
    ["spam.example", "suspend", false, true, true, "spam", null],
  );

  const [sub, modBlock, badDomain, badSeverity, allow, allowBad] = await Promise.all([
    roost(["domains", "block", "a.spam.example", ...dd]),
    roost(["domains", "block", "x.example", "--as", "mia", ...dd]),
    roost(["domains", "block", "not a domain", ...dd]),
    roost(["domains", "block", "y.example", "--severity", "banish", ...dd]),
    roost(["domains", "allow", "Friends.Example", "--json", ...dd]),
    roost(["domains", "allow", " ", ...dd]),
  ]);
  assert.deepEqual([sub.code, sub.stderr], [1, "error: You have already imposed stricter limits on spam.example.\n"]);
  assert.deepEqual([modBlock.code, modBlock.stderr], [1, "error: This action is not allowed\n"], "moderators lack manage_federation");
  assert.deepEqual([badDomain.code, badDomain.stderr], [1, "error: domain is invalid\n"]);
  assert.deepEqual([badSeverity.code, badSeverity.stderr], [1, "error: severity is not included in the list\n"]);
  assert.equal(allow.code, 0, allow.stderr);
  assert.equal(JSON.parse(allow.stdout).domain, "friends.example");
  assert.deepEqual([allowBad.code, allowBad.stderr], [1, "error: domain can't be blank\n"]);

  // Blocking a blocked domain again changes its block.
  const again = await roost(["domains", "block", "spam.example", "--severity", "silence", "--no-obfuscate", "--json", ...dd]);
  assert.equal(again.code, 0, again.stderr);
  assert.deepEqual([JSON.parse(again.stdout).id, JSON.parse(again.stdout).severity, JSON.parse(again.stdout).obfuscate, JSON.parse(again.stdout).public_comment], [b.id, "silence", false, "spam"]);

  const [table, listJson, allows] = await Promise.all([
    roost(["domains", "list", ...dd]),
    roost(["domains", "list", "--json", ...dd]),
    roost(["domains", "list", "--allows", "--json", ...dd]),
  ]);
  assert.match(lines(table.stdout)[0], /^ID\s+DOMAIN\s+SEVERITY\s+REJECT MEDIA\s+REJECT REPORTS\s+OBFUSCATE\s+CREATED\s+PUBLIC COMMENT$/);
  assert.match(lines(table.stdout)[1], /\bspam\.example\s+silence\s+no\s+yes\s+no\b.*\bspam$/);
  assert.deepEqual(jsonLines(listJson.stdout).map((x) => x.domain), ["spam.example"]);
  assert.deepEqual(jsonLines(allows.stdout).map((x) => x.domain), ["friends.example"]);

  const [unblock, unblockAgain, disallow] = await Promise.all([
    roost(["domains", "unblock", "spam.example", ...dd]),
    roost(["domains", "unblock", "nowhere.example", ...dd]),
    roost(["domains", "disallow", "friends.example", ...dd]),
  ]);
  assert.deepEqual([unblock.code, unblock.stderr], [0, "unblocked spam.example\n"]);
  assert.deepEqual([unblockAgain.code, unblockAgain.stderr], [1, "error: Record not found\n"]);
  assert.deepEqual([disallow.code, disallow.stderr], [0, "disallowed friends.example\n"]);

  const audit = await roost(["audit", "list", "--target-type", "DomainBlock", "--json", ...dd]);
  const entries = jsonLines(audit.stdout);
  assert.deepEqual(entries.map((e) => e.action), ["destroy", "update", "create"]);
  assert.ok(entries.every((e) => e.actor === "boss" && e.source === "cli" && e.target_name === "spam.example"));
  assert.deepEqual(entries[1].changes.severity, ["suspend", "silence"]);
});
