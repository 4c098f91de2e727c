import { test } from "node:test";
import assert from "node:assert/strict";
import { startTestServer } from "../helpers/server.ts";
import { Browser, PASSWORD, formWithButton } from "./oauth-helpers.ts";
import { createThrottle } from "../../src/lib/rate-limit.ts";

// Password guessing on the sign-in form is throttled like Mastodon's rack-attack rules.

test("the 26th sign-in attempt within 5 minutes from one address gets 429, even with the right password", async (t) => {
  const s = await startTestServer();
  t.after(() => s.close());
  await s.user("alice");
  const b = new Browser(s.url);
  const form = formWithButton((await b.fetch("/auth/sign_in")).text, "Sign in");
  const started = Date.now();
  for (let i = 0; i < 25; i++) {
    const r = await b.fetch("/auth/sign_in", { form: { ...form.fields, login: `guess${i}@example.test`, password: "wrong password" } });
    assert.equal(r.status, 422, `attempt ${i + 1}`);
  }
  const blocked = await b.fetch("/auth/sign_in", { form: { ...form.fields, login: "alice", password: PASSWORD } });
  assert.equal(blocked.status, 429);
  assert.match(blocked.text, /Too many sign-in attempts/);
  const retry = Number(blocked.headers.get("retry-after"));
  // The window opened at the first attempt: what is left of it, however slow the machine was.
  const elapsed = Math.ceil((Date.now() - started) / 1000);
  assert.ok(retry >= 300 - elapsed - 1 && retry <= 300, `retry-after ${retry} after ${elapsed} s`);
  assert.equal(b.cookies.get("roost_session"), undefined);
});

test("throttle windows: limit per key, reset after the period", () => {
  const th = createThrottle(2, 1000);
  assert.equal(th.hit("a", 0), 0);
  assert.equal(th.hit("a", 10), 0);
  assert.equal(th.hit("a", 20), 980);
  assert.equal(th.hit("b", 20), 0, "keys are independent");
  assert.equal(th.hit("a", 1000), 0, "a new window");
});
