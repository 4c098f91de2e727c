// roost invites create|list|expire and roost settings get|set as an operator runs them
// (subprocesses): output, --json, exit codes, refusals, the audit log, and a running server
// seeing a setting changed by the CLI.
import { test } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import { freePort, roost, serve, tempDir } from "./cli-helpers.ts";

const lines = (s: string) => s.trimEnd().split("\n");
const jsonLines = (s: string) => lines(s).map((l) => JSON.parse(l));

test("roost invites and roost settings: links, tables, --json, refusals, audit entries, a running server follows", async (t) => {
  const dataDir = join(tempDir(t), "data");
  const dd = ["--data-dir", dataDir];
  assert.equal((await roost(["init", ...dd, "--domain", "cli.example", "--protocol", "http"])).code, 0);
  for (const [name, role] of [["boss", "owner"], ["alice", "user"]]) {
    const r = await roost(["user", "create", name, ...dd, "--email", `${name}@cli.example`, "--password", "long enough pw", "--role", role]);
    assert.equal(r.code, 0, r.stderr);
  }

  const [link, json, zero, negative, badExpiry, longComment, asAlice] = await Promise.all([
    roost(["invites", "create", "--max-uses", "3", "--expires-in", "1w", ...dd]),
    roost(["invites", "create", "--max-uses", "1", "--autofollow", "--comment", "for Dana", "--json", ...dd]),
    roost(["invites", "create", "--max-uses", "0", ...dd]),
    roost(["invites", "create", "--max-uses", "-2", ...dd]),
    roost(["invites", "create", "--expires-in", "5m", ...dd]),
    roost(["invites", "create", "--comment", "x".repeat(20_000), ...dd]),
    roost(["invites", "create", "--as", "alice", ...dd]),
  ]);
  assert.equal(link.code, 0, link.stderr);
  assert.match(link.stdout, /^http:\/\/cli\.example\/invite\/[A-Za-z2-9]{8}\n$/);
  const one = JSON.parse(json.stdout);
  assert.deepEqual([one.max_uses, one.uses, one.autofollow, one.comment, one.state, one.inviter, one.expires_at], [1, 0, true, "for Dana", "available", "boss", null]);
  assert.deepEqual([zero.code, zero.stdout, zero.stderr], [1, "", 'error: --max-uses must be a positive integer or "unlimited": 0\n']);
  assert.equal(negative.code, 1);
  assert.match(negative.stderr, /^error: .*--max-uses/);
  assert.deepEqual([badExpiry.code, badExpiry.stderr], [1, "error: --expires-in must be one of 30m, 1h, 6h, 12h, 1d, 1w, never\n"]);
  assert.deepEqual([longComment.code, longComment.stderr], [1, "error: comment is too long (maximum is 420 characters)\n"]);
  assert.equal(asAlice.code, 0, "everyone may invite by default");

  const [list, listJson, mine, allAsAlice, expire, unknown] = await Promise.all([
    roost(["invites", "list", ...dd]),
    roost(["invites", "list", "--all", "--json", ...dd]),
    roost(["invites", "list", "--json", "--as", "alice", ...dd]),
    roost(["invites", "list", "--all", "--as", "alice", ...dd]),
    roost(["invites", "expire", one.code, "--json", ...dd]),
    roost(["invites", "expire", "NOPE1234", ...dd]),
  ]);
  assert.equal(list.code, 0, list.stderr);
  const rows = lines(list.stdout);
  assert.match(rows[0], /^ID\s+CODE\s+INVITER\s+USES\s+MAX USES\s+EXPIRES\s+STATE\s+AUTOFOLLOW\s+COMMENT$/);
  assert.equal(rows.length, 3, "boss's two invites");
  assert.deepEqual(jsonLines(listJson.stdout).map((i) => i.inviter).sort(), ["alice", "boss", "boss"]);
  assert.deepEqual(jsonLines(mine.stdout).map((i) => i.inviter), ["alice"]);
  assert.deepEqual([allAsAlice.code, allAsAlice.stderr], [1, "error: This action is not allowed\n"]);
  assert.equal(expire.code, 0, expire.stderr);
  assert.equal(JSON.parse(expire.stdout).state, "expired");
  assert.deepEqual([unknown.code, unknown.stderr], [1, "error: Invite not found: NOPE1234\n"]);
  const kept = await roost(["invites", "list", "--expired", "--json", ...dd]);
  assert.deepEqual(jsonLines(kept.stdout).map((i) => i.code), [one.code], "the expired invite is kept");

  // Settings: a table, one value alone, changes, refusals.
  const [table, tableJson, reg, badKey, badValue, notAllowed] = await Promise.all([
    roost(["settings", "get", ...dd]),
    roost(["settings", "get", "--json", ...dd]),
    roost(["settings", "get", "registrations", ...dd]),
    roost(["settings", "set", "nope", "on", ...dd]),
    roost(["settings", "set", "invites", "maybe", ...dd]),
    roost(["settings", "set", "invites", "off", "--as", "alice", ...dd]),
  ]);
  assert.match(lines(table.stdout)[0], /^SETTING\s+VALUE\s+SOURCE\s+DESCRIPTION$/);
  assert.deepEqual(jsonLines(tableJson.stdout).map((r) => [r.key, r.value, r.source]), [
    ["registrations", "open", "config"],
    ["approval", "off", "config"],
    ["invites", "on", "default"],
    ["invites-min-role", "everyone", "default"],
    ["limited-federation", "off", "config"],
    ["trends-review", "off", "config"],
  ]);
  assert.deepEqual([reg.code, reg.stdout], [0, "open\n"]);
  assert.equal(badKey.code, 1);
  assert.match(badKey.stderr, /^error: Unknown setting: nope \(one of registrations, approval, invites/);
  assert.deepEqual([badValue.code, badValue.stderr], [1, 'error: Validation failed: expected on or off, got "maybe"\n']);
  assert.deepEqual([notAllowed.code, notAllowed.stderr], [1, "error: This action is not allowed\n"]);

  // A running server follows the database at once.
  const port = await freePort();
  const server = await serve([...dd, "--port", String(port)]);
  t.after(() => server.stop());
  const instance = async () => (await fetch(`${server.url}/api/v1/instance`)).json() as Promise<{ registrations: boolean; approval_required: boolean; invites_enabled: boolean }>;
  assert.deepEqual(await instance().then((i) => [i.registrations, i.approval_required, i.invites_enabled]), [true, false, true]);
  const [approval, invitesOff] = await Promise.all([roost(["settings", "set", "approval", "on", ...dd]), roost(["settings", "set", "invites", "off", ...dd])]);
  assert.deepEqual([approval.code, approval.stdout], [0, "on\n"]);
  assert.deepEqual([invitesOff.code, invitesOff.stdout], [0, "off\n"]);
  assert.deepEqual(await instance().then((i) => [i.registrations, i.approval_required, i.invites_enabled]), [true, true, false]);
  assert.deepEqual((await roost(["settings", "get", "registrations", ...dd])).stdout, "approval\n");
  const refused = await roost(["invites", "create", ...dd]);
  assert.deepEqual([refused.code, refused.stderr], [1, "error: This action is not allowed\n"], "invites off");
  const closed = await roost(["settings", "set", "registrations", "closed", ...dd]);
  assert.equal(closed.code, 0, closed.stderr);
  assert.deepEqual(await instance().then((i) => [i.registrations, i.approval_required]), [false, false]);
  const closedApproval = await roost(["settings", "set", "approval", "off", ...dd]);
  assert.equal(closedApproval.code, 1);

  // The audit log: each action with its changes.
  const audit = jsonLines((await roost(["audit", "list", "--json", ...dd])).stdout);
  const find = (action: string, type: string) => audit.filter((e) => e.action === action && e.target_type === type);
  assert.equal(find("create", "Invite").length, 3);
  assert.equal(find("expire", "Invite").length, 1);
  // (approval and invites were set at the same time: in either order)
  assert.deepEqual(find("update", "Setting").map((e) => JSON.stringify(e.changes)).sort(), [
    '{"approval":["off","on"]}',
    '{"invites":["on","off"]}',
    '{"registrations":["approval","closed"]}',
  ]);
});
