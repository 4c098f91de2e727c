// roost announcements as an operator runs it (subprocesses): create, list (table and --json),
// update, publish, unpublish, delete; one-line errors and exit codes; audit entries from the CLI;
// and an announcement made from the command line reaching a running server's live streams.
import { test } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import WebSocket from "ws";
import { loadConfig } from "../../src/config/config.ts";
import { closeApp, createApp } from "../../src/main.ts";
import { CLI_APP, ensureBuiltinApp, issueToken } from "../../src/services/tokens.ts";
import { createUser } from "../../src/services/users.ts";
import { freePort, roost, serve, tempDir } from "./cli-helpers.ts";

const lines = (s: string) => s.trimEnd().split("\n");
const jsonLines = (s: string) => lines(s).map((l) => JSON.parse(l));

test("roost announcements create / list / update / publish / unpublish / delete: records, tables, --json, errors, audit", { timeout: 120_000 }, async (t) => {
  const dataDir = join(tempDir(t), "data");
  const dd = ["--data-dir", dataDir];
  assert.equal((await roost(["init", ...dd, "--domain", "cli.example", "--protocol", "http"])).code, 0);
  const users = await Promise.all(
    [["boss", "owner"], ["mia", "moderator"]].map(([name, role]) =>
      roost(["user", "create", name, ...dd, "--email", `${name}@cli.example`, "--password", "long enough pw", "--role", role]),
    ),
  );
  for (const made of users) assert.equal(made.code, 0, made.stderr);

  const hello = await roost(["announcements", "create", "Hello #everyone", "--starts-at", "2030-05-01", "--ends-at", "2030-05-02", "--all-day", "--json", ...dd]);
  assert.equal(hello.code, 0, hello.stderr);
  const h = JSON.parse(hello.stdout);
  assert.deepEqual(
    [h.published, h.scheduled_at, h.starts_at, h.ends_at, h.all_day, h.text],
    [true, null, "2030-05-01T00:00:00.000Z", "2030-05-02T00:00:00.000Z", true, "Hello #everyone"],
  );
  assert.match(h.id, /^\d+$/);

  const [later, blank, half, badTime, asMod, plain] = await Promise.all([
    roost(["announcements", "create", "Later", "--scheduled-at", "2031-01-01T10:00:00Z", "--json", ...dd]),
    roost(["announcements", "create", " ", ...dd]),
    roost(["announcements", "create", "x", "--starts-at", "2030-01-01", ...dd]),
    roost(["announcements", "create", "x", "--scheduled-at", "soon", ...dd]),
    roost(["announcements", "create", "x", "--as", "mia", ...dd]),
    roost(["announcements", "create", "Plain one", ...dd]),
  ]);
  assert.equal(later.code, 0, later.stderr);
  assert.deepEqual([JSON.parse(later.stdout).published, JSON.parse(later.stdout).scheduled_at], [false, "2031-01-01T10:00:00.000Z"]);
  assert.deepEqual([blank.code, blank.stderr], [1, "error: text can't be blank\n"]);
  assert.deepEqual([half.code, half.stderr], [1, "error: ends at can't be blank\n"]);
  assert.deepEqual([badTime.code, badTime.stderr], [1, "error: scheduled at is invalid\n"]);
  assert.deepEqual([asMod.code, asMod.stderr], [1, "error: This action is not allowed\n"], "moderators lack manage_announcements");
  assert.equal(plain.code, 0, plain.stderr);
  // Without --json: `key  value` lines.
  assert.match(plain.stdout, /^id\s+\d+\npublished\s+yes\n/);
  assert.match(plain.stdout, /\ntext\s+Plain one\n$/);

  const [table, listed] = await Promise.all([roost(["announcements", "list", ...dd]), roost(["announcements", "list", "--json", ...dd])]);
  assert.equal(table.code, 0, table.stderr);
  assert.match(lines(table.stdout)[0], /^ID\s+PUBLISHED\s+SCHEDULED\s+STARTS\s+ENDS\s+ALL DAY\s+TEXT$/);
  assert.equal(lines(table.stdout).length, 4);
  assert.ok(lines(table.stdout).some((l) => /\bno\s+2031-01-01T10:00:00\.000Z\s+-\s+-\s+no\s+Later$/.test(l)), table.stdout);
  const rows = jsonLines(listed.stdout);
  assert.deepEqual(rows.map((r) => r.text).sort(), ["Hello #everyone", "Later", "Plain one"]);
  assert.deepEqual(Object.keys(rows[0]), ["id", "published", "published_at", "scheduled_at", "starts_at", "ends_at", "all_day", "text"]);

  const updated = await roost(["announcements", "update", h.id, "--text", "Hello again", "--no-all-day", "--starts-at", "", "--ends-at", "", "--json", ...dd]);
  assert.equal(updated.code, 0, updated.stderr);
  assert.deepEqual((({ text, all_day, starts_at, ends_at }) => ({ text, all_day, starts_at, ends_at }))(JSON.parse(updated.stdout)), {
    text: "Hello again",
    all_day: false,
    starts_at: null,
    ends_at: null,
  });
  const [off, on] = await Promise.all([
    roost(["announcements", "unpublish", h.id, "--json", ...dd]),
    roost(["announcements", "publish", JSON.parse(later.stdout).id, "--json", ...dd]),
  ]);
  assert.deepEqual([off.code, JSON.parse(off.stdout).published], [0, false]);
  assert.deepEqual([on.code, JSON.parse(on.stdout).published, JSON.parse(on.stdout).scheduled_at], [0, true, null]);

  const [gone, missing, notId] = await Promise.all([
    roost(["announcements", "delete", h.id, ...dd]),
    roost(["announcements", "publish", "123456", ...dd]),
    roost(["announcements", "update", "nope", "--text", "x", ...dd]),
  ]);
  assert.deepEqual([gone.code, gone.stdout, gone.stderr], [0, "", `deleted announcement ${h.id}\n`]);
  assert.deepEqual([missing.code, missing.stderr], [1, "error: Record not found\n"]);
  assert.deepEqual([notId.code, notId.stderr], [1, "error: Record not found\n"]);

  const audit = await roost(["audit", "list", "--target-type", "Announcement", "--json", ...dd]);
  assert.equal(audit.code, 0, audit.stderr);
  const entries = jsonLines(audit.stdout);
  assert.deepEqual(
    entries.map((e) => e.action),
    ["destroy", "update", "update", "update", "create", "create", "create"],
  );
  assert.ok(entries.every((e) => e.source === "cli" && e.actor === "boss"), audit.stdout);
});

test("an announcement created with the CLI reaches the user streams of a running server", { timeout: 120_000 }, async (t) => {
  const dataDir = join(tempDir(t), "data");
  const port = await freePort();
  const server = await serve(["--data-dir", dataDir, "--port", String(port)], { ROOST_BACKUP_SCHEDULE: "off" });
  t.after(() => server.stop());
  // The users through the services `roost user create` and `roost token create` use, in process.
  const setup = createApp(loadConfig(dataDir, { logLevel: "silent", jobsAutorun: false }, {}));
  let token: string;
  try {
    await createUser(setup, { username: "boss", email: "boss@example.test", password: "correct horse battery", role: "owner" });
    const { user } = await createUser(setup, { username: "sam", email: "sam@example.test", password: "correct horse battery" });
    token = issueToken(setup, { userId: user.id, applicationId: ensureBuiltinApp(setup, CLI_APP).id, scopes: ["read"] }).token;
  } finally {
    await closeApp(setup);
  }
  const ws = new WebSocket(`${server.url.replace(/^http/, "ws")}/api/v1/streaming?stream=user`, [token]);
  const frames: string[] = [];
  const first = new Promise<string>((resolve) => ws.on("message", (d) => frames.push(String(d)) === 1 && resolve(String(d))));
  await new Promise((resolve, reject) => ws.once("open", resolve).once("error", reject));
  t.after(() => ws.close());

  const made = await roost(["announcements", "create", "Server maintenance at 22:00", "--json", "--data-dir", dataDir]);
  assert.equal(made.code, 0, made.stderr);
  const id = JSON.parse(made.stdout).id;
  // The server's job runner finds the command's job on its next poll (about a second).
  const event = JSON.parse(await first);
  assert.deepEqual([event.stream, event.event], [["user"], "announcement"]);
  const payload = JSON.parse(event.payload);
  assert.deepEqual([payload.id, payload.content], [id, "<p>Server maintenance at 22:00</p>"]);
});
