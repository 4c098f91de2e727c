import { test } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import { setTimeout as delay } from "node:timers/promises";
import { loadConfig } from "../../src/config/config.ts";
import { closeApp, createApp } from "../../src/main.ts";
import { rescheduleStatus } from "../../src/services/scheduled-statuses.ts";
import { CLI_APP, ensureBuiltinApp, issueToken } from "../../src/services/tokens.ts";
import { createUser } from "../../src/services/users.ts";
import { freePort, serve, tempDir } from "./cli-helpers.ts";

// A post scheduled on a running `roost serve` survives a real restart, and one that fell due
// while the server was down is posted when it starts again.
//
// The subprocess's clock cannot be moved, and a post must be scheduled more than 5 minutes
// ahead. So, while the server is down, the test moves the post's time to a second ago through
// the same service as PUT /api/v1/scheduled_statuses/:id, run in-process with a clock six
// minutes behind (for that clock the new time is still 5 minutes ahead). No setting relaxes
// the rule for tests: the stored row and its persisted job are exactly what a PUT made
// six minutes earlier would have left.

const MIN = 60_000;

test("scheduled posts survive a restart of serve; one due while it was down is posted at start", { timeout: 120_000 }, async (t) => {
  const dataDir = join(tempDir(t), "data");
  const port = await freePort();
  const first = await serve(["--data-dir", dataDir, "--port", String(port)]);
  let second: Awaited<ReturnType<typeof serve>> | undefined;
  t.after(async () => {
    await first.stop();
    await second?.stop();
  });
  // The user and token through the services `roost user create` and `roost token create` use,
  // in this process (two CLI subprocesses would cost seconds).
  const local = (now?: () => number) => createApp(loadConfig(dataDir, { logLevel: "silent", jobsAutorun: false }, {}), { now });
  const setup = local();
  let token: string;
  try {
    const { user } = await createUser(setup, { username: "sam", email: "sam@example.test", password: "correct horse battery" });
    token = issueToken(setup, { userId: user.id, applicationId: ensureBuiltinApp(setup, CLI_APP).id, scopes: ["read", "write"] }).token;
  } finally {
    await closeApp(setup);
  }
  const api = async (url: string, method: string, path: string, body?: unknown) => {
    const res = await fetch(url + path, {
      method,
      headers: { authorization: `Bearer ${token}`, ...(body ? { "content-type": "application/json" } : {}) },
      body: body ? JSON.stringify(body) : undefined,
    });
    return { status: res.status, body: (await res.json()) as any };
  };

  const me = (await api(first.url, "GET", "/api/v1/accounts/verify_credentials")).body;
  const soon = await api(first.url, "POST", "/api/v1/statuses", { status: "posted after the restart", scheduled_at: new Date(Date.now() + 60 * MIN).toISOString() });
  assert.equal(soon.status, 200, JSON.stringify(soon.body));
  const laterAt = new Date(Date.now() + 2 * 60 * MIN).toISOString();
  const later = await api(first.url, "POST", "/api/v1/statuses", { status: "still waiting", scheduled_at: laterAt });
  assert.equal(later.status, 200, JSON.stringify(later.body));
  assert.equal(await first.stop(), 0);

  // Down: the first post falls due (see the note above).
  const app = local(() => Date.now() - 6 * MIN);
  try {
    const moved = rescheduleStatus(app, me.id, soon.body.id, new Date(Date.now() - 1000).toISOString());
    assert.ok(moved.scheduledAt < Date.now());
  } finally {
    await closeApp(app);
  }

  second = await serve(["--data-dir", dataDir, "--port", String(port)]);
  const started = Date.now();
  let posted: any[] = [];
  // The post goes out as the job runner starts; a few seconds allow for a loaded machine.
  while (Date.now() - started < 20_000) {
    posted = (await api(second.url, "GET", `/api/v1/accounts/${me.id}/statuses`)).body;
    if (posted.length > 0) break;
    await delay(100);
  }
  assert.deepEqual(posted.map((x) => x.content), ["<p>posted after the restart</p>"]);
  const pending = (await api(second.url, "GET", "/api/v1/scheduled_statuses")).body;
  assert.deepEqual(pending.map((x: any) => [x.id, x.scheduled_at, x.params.text]), [[later.body.id, laterAt, "still waiting"]]);
  assert.equal(await second.stop(), 0);
});
