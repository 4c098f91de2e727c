import { test } from "node:test";
import assert from "node:assert/strict";
import { deleteCascading, withForeignKeysOff } from "../../src/db/cascade-delete.ts";
import { openDatabase } from "../../src/db/db.ts";

// db/cascade-delete.ts on a schema of its own: every ON DELETE action, a self-reference
// followed through generations, grandchildren, and the same result as SQLite's own cascade.

const SCHEMA = `
  CREATE TABLE posts (id INTEGER PRIMARY KEY, boost_of INTEGER REFERENCES posts(id) ON DELETE CASCADE,
                      reply_to INTEGER REFERENCES posts(id) ON DELETE SET NULL, uri TEXT UNIQUE);
  CREATE TABLE polls (id INTEGER PRIMARY KEY, post_id INTEGER NOT NULL REFERENCES posts(id) ON DELETE CASCADE);
  CREATE TABLE votes (id INTEGER PRIMARY KEY, poll_id INTEGER NOT NULL REFERENCES polls(id) ON DELETE CASCADE);
  CREATE TABLE feed (owner INTEGER, post_id INTEGER REFERENCES posts(id) ON DELETE CASCADE, PRIMARY KEY (owner, post_id)) WITHOUT ROWID;
  CREATE TABLE drafts (id INTEGER PRIMARY KEY, post_id INTEGER DEFAULT 0 REFERENCES posts(id) ON DELETE SET DEFAULT);
  CREATE TABLE by_uri (id INTEGER PRIMARY KEY, post_uri TEXT REFERENCES posts(uri) ON DELETE CASCADE);
  INSERT INTO posts (id, uri) VALUES (0, 'zero');
  INSERT INTO posts (id, boost_of, reply_to, uri) VALUES (1, NULL, NULL, 'a'), (2, 1, NULL, 'b'), (3, 2, NULL, 'c'), (4, 3, NULL, 'd'),
                                                       (5, NULL, 1, 'e'), (6, NULL, NULL, 'f'), (7, NULL, 4, 'g');
  INSERT INTO polls (id, post_id) VALUES (10, 1), (11, 3), (12, 6);
  INSERT INTO votes (id, poll_id) VALUES (20, 10), (21, 11), (22, 12);
  INSERT INTO feed (owner, post_id) VALUES (1, 1), (1, 4), (1, 6), (2, 2);
  INSERT INTO drafts (id, post_id) VALUES (30, 1), (31, 6);
  INSERT INTO by_uri (id, post_uri) VALUES (40, 'a'), (41, 'd'), (42, 'f');
`;

function fixture() {
  const db = openDatabase(":memory:");
  db.exec(SCHEMA);
  return db;
}

const all = (db: ReturnType<typeof fixture>, sql: string) => (db.prepare(sql).raw().all() as unknown[][]).map((r) => r.map((v) => (typeof v === "bigint" ? Number(v) : v)));

function snapshot(db: ReturnType<typeof fixture>) {
  return {
    posts: all(db, "SELECT id, boost_of, reply_to FROM posts ORDER BY id"),
    polls: all(db, "SELECT id FROM polls ORDER BY id"),
    votes: all(db, "SELECT id FROM votes ORDER BY id"),
    feed: all(db, "SELECT owner, post_id FROM feed ORDER BY owner, post_id"),
    drafts: all(db, "SELECT id, post_id FROM drafts ORDER BY id"),
    byUri: all(db, "SELECT id FROM by_uri ORDER BY id"),
  };
}

test("deleting post 1 with foreign keys off: its boost chain, polls, votes, feed rows and rows naming its uri go; replies and drafts are cleared; as SQLite's cascade does", () => {
  const off = fixture();
  const n = withForeignKeysOff(off, () => off.transaction(() => deleteCascading(off, "posts", "SELECT value FROM json_each(@ids)", { ids: "[1]" })).immediate());
  assert.equal(n, 4, "post 1 and the boosts of it, of its boost, and of that one");
  assert.equal(off.pragma("foreign_keys", { simple: true }), 1n);
  assert.deepEqual(off.pragma("foreign_key_check"), []);
  const expected = {
    posts: [[0, null, null], [5, null, null], [6, null, null], [7, null, null]],
    polls: [[12]],
    votes: [[22]],
    feed: [[1, 6]],
    drafts: [[30, 0], [31, 6]],
    byUri: [[42]],
  };
  assert.deepEqual(snapshot(off), expected);

  const on = fixture();
  on.prepare("DELETE FROM posts WHERE id = 1").run();
  assert.deepEqual(snapshot(on), expected, "SQLite's own cascade gives the same rows");
  const withKeysOn = fixture();
  withKeysOn.transaction(() => deleteCascading(withKeysOn, "posts", "SELECT value FROM json_each(@ids)", { ids: "[1]" })).immediate();
  assert.deepEqual(snapshot(withKeysOn), expected, "and so does deleteCascading with foreign keys on");
});

test("a NO ACTION reference refuses the delete and the transaction rolls back; a delete outside a transaction and a pragma inside one are refused", () => {
  const db = fixture();
  db.exec("CREATE TABLE keeps (id INTEGER PRIMARY KEY, post_id INTEGER REFERENCES posts(id)); INSERT INTO keeps VALUES (50, 6);");
  assert.throws(
    () => withForeignKeysOff(db, () => db.transaction(() => deleteCascading(db, "posts", "SELECT value FROM json_each(@ids)", { ids: "[5, 6]" })).immediate()),
    /FOREIGN KEY constraint failed: keeps.post_id refers to a posts row being deleted/,
  );
  assert.equal(db.prepare("SELECT count(*) FROM posts").pluck().get(), 8n, "nothing went");
  assert.equal(db.pragma("foreign_keys", { simple: true }), 1n);
  assert.equal(withForeignKeysOff(db, () => db.transaction(() => deleteCascading(db, "posts", "SELECT value FROM json_each(@ids)", { ids: "[5]" })).immediate()), 1);
  assert.throws(() => deleteCascading(db, "posts", "SELECT 7", {}), /in the caller's transaction/);
  assert.throws(() => db.transaction(() => withForeignKeysOff(db, () => 0))(), /inside a transaction/);
});

test("a table added after the first delete is found (the schema is read again when it changes)", () => {
  const db = fixture();
  db.transaction(() => deleteCascading(db, "posts", "SELECT 5", {})).immediate();
  db.exec("CREATE TABLE later (id INTEGER PRIMARY KEY, post_id INTEGER REFERENCES posts(id) ON DELETE CASCADE); INSERT INTO later VALUES (60, 6);");
  withForeignKeysOff(db, () => db.transaction(() => deleteCascading(db, "posts", "SELECT 6", {})).immediate());
  assert.equal(db.prepare("SELECT count(*) FROM later").pluck().get(), 0n);
  assert.deepEqual(db.pragma("foreign_key_check"), []);
});
