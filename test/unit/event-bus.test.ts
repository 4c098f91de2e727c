// The in-process event bus (events/bus.ts): messages reach listeners only after the write
// transaction commits, never when it rolls back (a failed savepoint drops only its own), never
// inside the writer's turn, and a failing listener hurts neither the writer nor the others.
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openDatabase, savepoint, tx } from "../../src/db/db.ts";
import { EventBus, type BusMessage } from "../../src/events/bus.ts";
import { createLog } from "../../src/lib/log.ts";

function setup(t: { after: (fn: () => void) => void }) {
  const dir = mkdtempSync(join(tmpdir(), "roost-bus-"));
  const db = openDatabase(join(dir, "bus.db"));
  db.exec("CREATE TABLE things (id INTEGER PRIMARY KEY)");
  const errors: string[] = [];
  const bus = new EventBus(db, createLog("error", (l) => errors.push(JSON.parse(l).msg)));
  t.after(() => {
    db.close();
    rmSync(dir, { recursive: true, force: true });
  });
  const got: string[] = [];
  bus.subscribe("t", (_topic, m) => got.push(m.payload!));
  const msg = (payload: string): BusMessage => ({ event: "announcement", payload });
  const turn = () => new Promise((r) => setImmediate(r));
  return { db, bus, got, msg, turn, errors };
}

test("delivered after commit, on a later turn; a rollback drops what its transaction published", async (t) => {
  const { db, bus, got, msg, turn } = setup(t);
  bus.publish("t", msg("outside"));
  assert.deepEqual(got, [], "never in the publisher's turn");
  tx(db, () => {
    db.prepare("INSERT INTO things (id) VALUES (1)").run();
    bus.publish("t", msg("committed"));
  });
  assert.throws(() =>
    tx(db, () => {
      db.prepare("INSERT INTO things (id) VALUES (2)").run();
      bus.publish("t", msg("rolled back"));
      throw new Error("no");
    }),
  );
  await turn();
  assert.deepEqual(got, ["outside", "committed"]);
  assert.equal(db.prepare("SELECT count(*) AS n FROM things").pluck().get(), 1n);
});

test("a savepoint that fails drops only its own messages; nothing leaves before the outermost commit", async (t) => {
  const { db, bus, got, msg, turn } = setup(t);
  tx(db, () => {
    bus.publish("t", msg("a"));
    assert.throws(() =>
      savepoint(db, () => {
        bus.publish("t", msg("b"));
        throw new Error("job failed");
      }),
    );
    tx(db, () => bus.publish("t", msg("c"))); // nested tx(): a savepoint too
    savepoint(db, () => bus.publish("t", msg("d")));
  });
  await turn();
  assert.deepEqual(got, ["a", "c", "d"]);
});

test("a listener that throws is logged; the writer and the other listeners carry on", async (t) => {
  const { db, bus, got, msg, turn, errors } = setup(t);
  bus.subscribe("t", () => {
    throw new Error("boom");
  });
  const seen: string[] = [];
  const stop = bus.observe((topic, m) => seen.push(`${topic}:${m.payload}`));
  tx(db, () => bus.publish("t", msg("x")));
  bus.publish("nobody", msg("y"));
  await turn();
  assert.deepEqual(got, ["x"]);
  assert.deepEqual(seen, ["t:x", "nobody:y"]);
  assert.deepEqual(errors, ["event bus: listener failed"]);
  stop();
  assert.equal(bus.wants("nobody"), false);
  assert.equal(bus.wants("t"), true);
});
