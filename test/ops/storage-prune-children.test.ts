import { test } from "node:test";
import assert from "node:assert/strict";
import { pruneStorage } from "../../src/ops/storage-prune.ts";
import { indexStatuses } from "../../src/search/status-index.ts";
import { favouriteStatus } from "../../src/services/status-interactions.ts";
import { findStatusById } from "../../src/storage/statuses.ts";
import { mentionOf, noteDoc, remoteAccountOf, startWorld, stored } from "../federation/remote-status-helpers.ts";

// The storage prune removes a remote post with every row that refers to it, in the server's
// job (foreign keys on: SQLite's cascade would do it) and in `roost prune`'s own connection
// (foreign keys off: db/cascade-delete.ts does it set-wise). The fixture has a row of every
// table with a foreign key to statuses, read from the schema: a table added later fails here
// until the fixture has one of its rows too.

const DAY = 86_400_000;
const ago = (days: number) => new Date(Date.now() - days * DAY).toISOString();
/** Rows of these tables make a remote post "touched": it stays (storage-prune.test.ts). */
const KEEPERS = new Set(["bookmarks", "status_pins", "notifications", "filter_statuses"]);

for (const ownConnection of [true, false]) {
  test(`a pruned remote post takes every child row with it, grandchildren and FTS rows included, clears SET NULL references, leaves foreign_key_check empty (${ownConnection ? "roost prune: foreign keys off" : "server job: foreign keys on"})`, async (t) => {
    const w = await startWorld(t);
    const { s } = w;
    const db = s.app.db;
    s.app.config.remoteContentRetentionDays = 90;
    const alice = await s.user("alice");
    const otto = await remoteAccountOf(s, w.remote.actor("otto"));
    const origin = new URL(w.rita.id).origin;
    const own = await s.api(alice, "POST", "/api/v1/statuses", { status: "mine #pruned" });
    const pruned = await stored(
      w,
      noteDoc(w.rita, {
        type: "Question",
        published: ago(200),
        content: "<p>zebrafinch question</p>",
        oneOf: [{ type: "Note", name: "yes" }, { type: "Note", name: "no" }],
        endTime: ago(199),
        tag: [{ type: "Hashtag", name: "#pruned", href: `${origin}/tags/pruned` }, { type: "Mention", href: otto.uri, name: `@otto@${new URL(otto.uri).host}` }],
        attachment: [{ type: "Document", mediaType: "image/png", url: `${origin}/files/p.png` }],
      }),
      { fetched: true },
    );
    const bookmarked = await stored(w, noteDoc(w.rita, { published: ago(190), content: "<p>zebrafinch kept</p>" }), { fetched: true });
    await s.api(alice, "POST", `/api/v1/statuses/${bookmarked.id}/bookmark`);
    // A recent remote reply: it stays, its in_reply_to_id is cleared (ON DELETE SET NULL).
    const reply = await stored(w, noteDoc(w.rita, { published: ago(10), inReplyTo: pruned.uri, tag: [mentionOf(w, alice)] }), { fetched: true });
    favouriteStatus(s.app, otto, pruned.id, { uri: `${otto.uri}#likes/1` });
    await s.drainJobs();

    // The rows no service makes for an old, untouched remote post, written here.
    const P = BigInt(pruned.id);
    const A = BigInt(alice.id);
    const now = Date.now();
    const oldBoost = (BigInt(now - 180 * DAY) << 16n) | 7n;
    db.prepare(`INSERT INTO statuses (id, account_id, local, uri, content, visibility, reblog_of_id, created_at, updated_at) VALUES (?, ?, 0, ?, '', 'public', ?, ?, ?)`).run(
      oldBoost, BigInt(otto.id), `${otto.uri}/statuses/boost/activity`, P, now - 180 * DAY, now - 180 * DAY,
    );
    db.prepare("INSERT INTO status_edits (status_id, account_id, content, created_at) VALUES (?, ?, '<p>before</p>', ?)").run(P, BigInt(w.author.id), now - 200 * DAY);
    db.prepare("INSERT OR IGNORE INTO home_feeds (account_id, status_id) VALUES (?, ?)").run(A, P);
    const list = await s.api(alice, "POST", "/api/v1/lists", { title: "far" });
    db.prepare("INSERT INTO list_feeds (list_id, status_id) VALUES (?, ?)").run(BigInt(list.id), P);
    const pollId = db.prepare("SELECT id FROM polls WHERE status_id = ?").pluck().get(P) as bigint;
    assert.ok(pollId, "the Question stored a poll");
    db.prepare("INSERT INTO poll_votes (poll_id, account_id, choice, uri, created_at) VALUES (?, ?, 0, ?, ?)").run(pollId, BigInt(otto.id), `${otto.uri}#votes/1`, now);
    const card = db.prepare("INSERT INTO preview_cards (url, title, created_at, updated_at) VALUES (?, 'a card', ?, ?)").run(`${origin}/article`, now, now).lastInsertRowid;
    db.prepare("INSERT INTO preview_cards_statuses (status_id, preview_card_id, url) VALUES (?, ?, ?)").run(P, card, `${origin}/article`);
    const conversation = db.prepare("INSERT INTO conversations (created_at) VALUES (?)").run(now).lastInsertRowid;
    db.prepare("INSERT INTO account_conversations (account_id, conversation_id, last_status_id) VALUES (?, ?, ?)").run(A, conversation, P);
    db.prepare("INSERT INTO notification_requests (account_id, from_account_id, last_status_id, created_at, updated_at) VALUES (?, ?, ?, ?, ?)").run(A, BigInt(w.author.id), P, now, now);
    indexStatuses(db, [bookmarked.id, own.id]);
    // As the index holds a post of an author who opted in to search (indexable).
    db.prepare("INSERT INTO status_search (rowid, text, meta) VALUES (?, 'zebrafinch question', '')").run(P);
    // Only a local post is ever imported; the row is here so that every referring table is covered.
    db.prepare("INSERT INTO imported_statuses (account_id, source_uri, status_id) VALUES (?, 'https://old.example/statuses/1', ?)").run(A, P);

    const count = (sql: string, ...args: unknown[]) => Number(db.prepare(sql).pluck().get(...args));
    const childKeys = db
      .prepare(`SELECT t.name AS child, f."from" AS col, f.on_delete AS onDelete FROM sqlite_schema t, pragma_foreign_key_list(t.name) f WHERE t.type = 'table' AND f."table" = 'statuses'`)
      .all() as { child: string; col: string; onDelete: string }[];
    const covered = childKeys.filter((k) => !KEEPERS.has(k.child));
    assert.ok(covered.length >= 13, `${covered.length} foreign keys to statuses`);
    for (const k of covered) {
      assert.ok(count(`SELECT count(*) FROM "${k.child}" WHERE "${k.col}" = ?`, P) > 0, `the fixture has a ${k.child}.${k.col} row referring to the pruned post`);
    }
    const match = (word: string) => (db.prepare("SELECT rowid FROM status_search WHERE status_search MATCH ?").pluck().all(word) as bigint[]).map(String).sort();
    assert.deepEqual(match("zebrafinch"), [pruned.id, bookmarked.id].sort());

    const done = await pruneStorage(s.app, { ownConnection });
    assert.equal(done.statuses.count, 2, "the post and the old remote boost of it");
    assert.equal(db.pragma("foreign_keys", { simple: true }), 1n, "foreign keys are on again");
    assert.deepEqual(db.pragma("foreign_key_check"), []);
    assert.equal(findStatusById(db, pruned.id), undefined);
    assert.equal(findStatusById(db, oldBoost.toString()), undefined);
    for (const k of covered) {
      assert.equal(count(`SELECT count(*) FROM "${k.child}" WHERE "${k.col}" = ?`, P), 0, `no ${k.child}.${k.col} refers to the pruned post`);
    }
    assert.equal(count("SELECT count(*) FROM poll_votes WHERE poll_id = ?", pollId), 0, "the poll's votes went with the poll");
    assert.equal(count("SELECT count(*) FROM media_attachments WHERE remote_url = ?", `${origin}/files/p.png`), 0, "the remote attachment row went");
    // SET NULL: the referring rows stay.
    assert.equal(findStatusById(db, reply.id)?.inReplyToId, null);
    assert.equal(count("SELECT count(*) FROM account_conversations WHERE account_id = ? AND last_status_id IS NULL", A), 1);
    assert.equal(count("SELECT count(*) FROM notification_requests WHERE account_id = ? AND last_status_id IS NULL", A), 1);
    assert.deepEqual(match("zebrafinch"), [bookmarked.id], "the search index forgot the pruned post");
    // Nothing local, nothing touched.
    assert.ok(findStatusById(db, bookmarked.id));
    assert.equal((await s.api(alice, "GET", `/api/v1/statuses/${own.id}`)).content, `<p>mine <a href="${s.url}/tags/pruned" class="mention hashtag" rel="tag">#<span>pruned</span></a></p>`);
    assert.equal(count("SELECT count(*) FROM statuses_tags WHERE status_id = ?", BigInt(own.id)), 1);
  });
}
