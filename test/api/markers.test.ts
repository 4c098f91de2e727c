import { test } from "node:test";
import assert from "node:assert/strict";
import { startTestServer } from "../helpers/server.ts";

// Read markers: GET /api/v1/markers and POST /api/v1/markers.

test("markers: save, version increments, per-user, validation", async (t) => {
  const s = await startTestServer();
  t.after(() => s.close());
  const [alice, bob] = [await s.user("alice"), await s.user("bob")];
  const both = "/api/v1/markers?timeline[]=home&timeline[]=notifications";

  assert.deepEqual(await s.api(alice, "GET", both), {});

  const saved = await s.api(alice, "POST", "/api/v1/markers", { home: { last_read_id: "103194548672408537" } });
  assert.deepEqual(Object.keys(saved), ["home"]);
  assert.equal(saved.home.last_read_id, "103194548672408537");
  assert.equal(saved.home.version, 0);
  assert.match(saved.home.updated_at, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);

  const form = new URLSearchParams([
    ["home[last_read_id]", "103194548672408600"],
    ["notifications[last_read_id]", "35098814"],
  ]);
  const again = await s.api(alice, "POST", "/api/v1/markers", form);
  assert.equal(again.home.version, 1);
  assert.equal(again.home.last_read_id, "103194548672408600");
  assert.equal(again.notifications.version, 0);
  assert.equal(again.notifications.last_read_id, "35098814");

  // Saving the same position is not a change.
  const same = await s.api(alice, "POST", "/api/v1/markers", { home: { last_read_id: "103194548672408600" } });
  assert.equal(same.home.version, 1);

  const got = await s.api(alice, "GET", both);
  assert.deepEqual(got, { home: again.home, notifications: again.notifications });
  assert.deepEqual(Object.keys(await s.api(alice, "GET", "/api/v1/markers?timeline[]=notifications")), ["notifications"]);
  assert.deepEqual(await s.api(alice, "GET", "/api/v1/markers"), {});
  assert.deepEqual(await s.api(bob, "GET", both), {}, "markers are per user");

  const blank = await s.req(alice, "POST", "/api/v1/markers", { home: { last_read_id: "" } });
  assert.equal(blank.status, 422);
  assert.equal(blank.body.error, "Validation failed: Last read can't be blank");
  assert.equal((await s.req(alice, "POST", "/api/v1/markers", { home: "5" })).status, 422);
  assert.deepEqual(await s.api(alice, "POST", "/api/v1/markers", { other: { last_read_id: "1" } }), {});

  assert.equal((await s.req(null, "GET", both)).status, 401);
  const reader = await s.user("reader", { scopes: ["read:statuses"] });
  assert.equal((await s.req(reader, "POST", "/api/v1/markers", { home: { last_read_id: "1" } })).status, 403);
  assert.deepEqual(await s.api(reader, "GET", both), {});
});
