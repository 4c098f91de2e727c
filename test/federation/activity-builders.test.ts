import { test } from "node:test";
import assert from "node:assert/strict";
import { startTestServer } from "../helpers/server.ts";
import * as ap from "../../src/federation/serializers/activities.ts";
import { ACTIVITY_CONTEXT } from "../../src/federation/serializers/context.ts";
import { findAccountById } from "../../src/storage/accounts.ts";
import { findBlock } from "../../src/storage/blocks.ts";
import { findFavouriteId } from "../../src/storage/favourites.ts";
import { findFollow } from "../../src/storage/follows.ts";
import { findStatusById } from "../../src/storage/statuses.ts";
import { AS_PUBLIC, post } from "./ap-test-helpers.ts";

// The outgoing activities of AP §5: ids and shapes, each with the full @context.

const strip = (doc: Record<string, unknown>) => {
  assert.deepEqual(doc["@context"], ACTIVITY_CONTEXT);
  assert.equal((doc["@context"] as unknown[])[0], "https://www.w3.org/ns/activitystreams");
  const { "@context": _c, ...rest } = doc;
  return rest;
};

test("follow, accept, reject, undo, block and like activities", async (t) => {
  const s = await startTestServer();
  t.after(() => s.close());
  const app = s.app;
  const base = app.baseUrl;
  const alice = await s.user("alice");
  const bob = await s.user("bob");
  const A = `${base}/users/alice`;
  const B = `${base}/users/bob`;

  await s.api(alice, "POST", `/api/v1/accounts/${bob.id}/follow`);
  const follow = findFollow(app.db, alice.id, bob.id)!;
  const followDoc = { id: follow.uri, type: "Follow", actor: A, object: B };
  assert.deepEqual(strip(ap.toApFollow(app, follow, alice.account, bob.account)), followDoc);
  assert.deepEqual(strip(ap.toApUndoFollow(app, follow, alice.account, bob.account)), {
    id: `${A}#follows/${follow.id}/undo`,
    type: "Undo",
    actor: A,
    object: followDoc,
  });
  assert.deepEqual(strip(ap.toApAcceptFollow(app, follow, alice.account, bob.account)), {
    id: `${B}#accepts/follows/${follow.id}`,
    type: "Accept",
    actor: B,
    object: followDoc,
  });
  assert.deepEqual(strip(ap.toApRejectFollow(app, follow, alice.account, bob.account)), {
    id: `${B}#rejects/follows/${follow.id}`,
    type: "Reject",
    actor: B,
    object: followDoc,
  });

  const st = await post(s, bob, { status: "like me" });
  await s.api(alice, "POST", `/api/v1/statuses/${st.id}/favourite`);
  const favId = findFavouriteId(app.db, alice.id, st.id)!;
  const status = findStatusById(app.db, st.id)!;
  const like = { id: `${A}#likes/${favId}`, type: "Like", actor: A, object: st.uri };
  assert.deepEqual(strip(ap.toApLike(app, alice.account, favId, status)), like);
  assert.deepEqual(strip(ap.toApUndoLike(app, alice.account, favId, status)), { id: `${A}#likes/${favId}/undo`, type: "Undo", actor: A, object: like });

  await s.api(alice, "POST", `/api/v1/accounts/${bob.id}/block`);
  const block = findBlock(app.db, alice.id, bob.id)!;
  const blockDoc = { id: block.uri, type: "Block", actor: A, object: B };
  assert.deepEqual(strip(ap.toApBlock(app, block, alice.account, bob.account)), blockDoc);
  assert.deepEqual(strip(ap.toApUndoBlock(app, block, alice.account, bob.account)), {
    id: `${A}#blocks/${block.id}/undo`,
    type: "Undo",
    actor: A,
    object: blockDoc,
  });
});

test("status activities: Create, Update, Delete, Announce, Undo(Announce), Add/Remove, Update(Person), Flag", async (t) => {
  const s = await startTestServer();
  t.after(() => s.close());
  const app = s.app;
  const base = app.baseUrl;
  const alice = await s.user("alice");
  const bob = await s.user("bob");
  const A = `${base}/users/alice`;
  const B = `${base}/users/bob`;
  const st = await post(s, alice, { status: "hello @bob", visibility: "unlisted" });

  const create = strip(ap.toApCreate(app, findStatusById(app.db, st.id)!));
  assert.equal(create.id, `${st.uri}/activity`);
  assert.equal(create.type, "Create");
  assert.equal(create.actor, A);
  assert.deepEqual(create.to, [`${A}/followers`]);
  assert.deepEqual(create.cc, [AS_PUBLIC, B]);
  assert.equal((create.object as { id: string }).id, st.uri);

  await s.api(alice, "PUT", `/api/v1/statuses/${st.id}`, { status: "hello again @bob", visibility: "unlisted" });
  const edited = findStatusById(app.db, st.id)!;
  const update = strip(ap.toApUpdateNote(app, edited));
  assert.equal(update.id, `${st.uri}#updates/${Math.floor(edited.editedAt! / 1000)}`);
  assert.equal(update.type, "Update");
  assert.equal(update.published, new Date(edited.editedAt!).toISOString().replace(/\.\d{3}Z$/, "Z"));
  assert.deepEqual([update.to, update.cc], [create.to, create.cc]);
  assert.equal((update.object as { updated: string }).updated, update.published);

  assert.deepEqual(strip(ap.toApDeleteNote(app, edited, alice.account)), {
    id: `${st.uri}#delete`,
    type: "Delete",
    actor: A,
    to: [AS_PUBLIC],
    object: { id: st.uri, type: "Tombstone", atomUri: st.uri },
  });

  const boost = await s.api(bob, "POST", `/api/v1/statuses/${st.id}/reblog`, { visibility: "public" });
  const boostRow = findStatusById(app.db, boost.id)!;
  const announce = {
    id: `${B}/statuses/${boost.id}/activity`,
    type: "Announce",
    actor: B,
    published: new Date(boostRow.createdAt).toISOString().replace(/\.\d{3}Z$/, "Z"),
    to: [AS_PUBLIC],
    cc: [A, `${B}/followers`],
    object: st.uri,
  };
  assert.deepEqual(strip(ap.toApAnnounce(app, boostRow, edited, alice.account)), announce);
  assert.deepEqual(strip(ap.toApUndoAnnounce(app, boostRow, edited, alice.account)), {
    id: `${B}#announces/${boost.id}/undo`,
    type: "Undo",
    actor: B,
    to: [AS_PUBLIC],
    object: announce,
  });

  for (const kind of ["Add", "Remove"] as const) {
    assert.deepEqual(strip(ap.toApFeaturedChange(app, kind, alice.account, edited)), {
      type: kind,
      actor: A,
      object: st.uri,
      target: `${A}/collections/featured`,
    });
  }

  await s.api(alice, "PATCH", "/api/v1/accounts/update_credentials", { display_name: "Alice" });
  const account = findAccountById(app.db, alice.id)!;
  const person = strip(ap.toApUpdateActor(app, account));
  assert.equal(person.id, `${A}#updates/${Math.floor(account.updatedAt / 1000)}`);
  assert.equal(person.type, "Update");
  assert.deepEqual(person.to, [AS_PUBLIC]);
  const object = person.object as Record<string, unknown>;
  assert.equal(object.type, "Person");
  assert.equal(object.name, "Alice");
  assert.equal("@context" in object, false);

  assert.deepEqual(
    strip(ap.toApFlag(app, { uri: `${base}/reports/1`, comment: "spam", targetUri: "https://remote.example/users/x", statusUris: ["https://remote.example/s/1"] })),
    {
      id: `${base}/reports/1`,
      type: "Flag",
      actor: `${base}/actor`,
      content: "spam",
      object: ["https://remote.example/users/x", "https://remote.example/s/1"],
    },
  );
});
