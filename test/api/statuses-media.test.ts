// `media_ids[]` on POST and PUT /api/v1/statuses, `media_attributes[]` on edit, and what
// deleting a status does to its uploads: Mastodon's PostStatusService/UpdateStatusService rules
// and messages, the seed's "no description change once attached".
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { startTestServer, type TestServer, type TestUser } from "../helpers/server.ts";
import { mediaOnDisk, phoneJpeg, pngWithAlpha, upload, webp } from "./media-helpers.ts";

let s: TestServer;
let alice: TestUser;
let bob: TestUser;
before(async () => {
  s = await startTestServer();
  alice = await s.user("alice");
  bob = await s.user("bob");
});
after(() => s.close());

async function uploaded(who: TestUser, description?: string): Promise<string> {
  const res = await upload(s, who, await pngWithAlpha(20, 10), { type: "image/png", fields: description ? { description } : {} });
  assert.equal(res.status, 200, res.text);
  return res.body.id;
}

test("a post with media only: attachments in media_ids order, shown on the status and to followers", async () => {
  const [a, b, c] = [await uploaded(alice, "one"), await uploaded(alice, "two"), await uploaded(alice, "three")];
  const st = await s.api(alice, "POST", "/api/v1/statuses", { status: "", media_ids: [c, a, b] });
  assert.equal(st.content, "");
  assert.deepEqual(st.media_attachments.map((m: { id: string }) => m.id), [c, a, b]);
  assert.deepEqual(st.media_attachments.map((m: { description: string }) => m.description), ["three", "one", "two"]);
  const shown = await s.api(bob, "GET", `/api/v1/statuses/${st.id}`);
  assert.deepEqual(shown.media_attachments.map((m: { id: string }) => m.id), [c, a, b]);
  assert.match(shown.media_attachments[0].url, /\/original\.png$/);
  // Form encoding (Tusky) works the same.
  const d = await uploaded(alice);
  const form = new URLSearchParams([["status", "form"], ["media_ids[]", d]]);
  const viaForm = await s.req(alice, "POST", "/api/v1/statuses", form);
  assert.equal(viaForm.status, 200, viaForm.text);
  assert.deepEqual(viaForm.body.media_attachments.map((m: { id: string }) => m.id), [d]);
});

test("media_ids are refused with Mastodon's messages: someone else's, already attached, unknown, too many, with a poll", async () => {
  const mine = await uploaded(alice);
  const bobs = await uploaded(bob);
  const refuse = async (body: Record<string, unknown>, error: string) => {
    const r = await s.req(alice, "POST", "/api/v1/statuses", body);
    assert.equal(r.status, 422, `${JSON.stringify(body)}: ${r.text}`);
    assert.deepEqual(r.body, { error });
  };
  await refuse({ status: "x", media_ids: [bobs] }, `Media ${bobs} not found or already attached to another post`);
  await refuse({ status: "x", media_ids: [mine, "123", "abc"] }, "Media 123, abc not found or already attached to another post");
  await refuse({ status: "x", media_ids: ["1", "2", "3", "4", "5"] }, "Cannot attach more than 4 files");
  // A status has media or a poll, not both (Mastodon's too-many message).
  await refuse({ status: "x", media_ids: [mine], poll: { options: ["a", "b"], expires_in: 3600 } }, "Cannot attach more than 4 files");
  await s.api(alice, "POST", "/api/v1/statuses", { status: "taken", media_ids: [mine] });
  await refuse({ status: "again", media_ids: [mine] }, `Media ${mine} not found or already attached to another post`);
  // Nothing was attached by the refused posts.
  const bobsRow = await s.req(bob, "GET", `/api/v1/media/${bobs}`);
  assert.equal(bobsRow.status, 200);
  // Text stays required without media.
  await refuse({ status: "  ", media_ids: [] }, "Validation failed: Text can't be blank");
});

test("editing: media_ids replace the attachments (a new revision), media_attributes set alt text of new ones only", async () => {
  const a = await uploaded(alice, "alpha");
  const b = await uploaded(alice, "beta");
  const st = await s.api(alice, "POST", "/api/v1/statuses", { status: "album", media_ids: [a] });

  // Unchanged text and media: no revision.
  const same = await s.api(alice, "PUT", `/api/v1/statuses/${st.id}`, { status: "album", media_ids: [a], media_attributes: [{ id: a, description: "alpha" }] });
  assert.equal(same.edited_at, null);

  // Changing the alt text of an attached upload is refused (the seed); of a new one, allowed.
  const refused = await s.req(alice, "PUT", `/api/v1/statuses/${st.id}`, { status: "album", media_ids: [a, b], media_attributes: [{ id: a, description: "ALPHA" }] });
  assert.equal(refused.status, 422);
  assert.equal(refused.body.error, "Validation failed: Description cannot be changed once the media is attached to a post");
  const edited = await s.api(alice, "PUT", `/api/v1/statuses/${st.id}`, {
    status: "album",
    media_ids: [b, a],
    media_attributes: [{ id: b, description: "beta, better", focus: "0.1,0.2" }, { id: a, focus: "-1,-1" }],
  });
  assert.notEqual(edited.edited_at, null);
  assert.deepEqual(edited.media_attachments.map((m: { id: string }) => m.id), [b, a]);
  assert.equal(edited.media_attachments[0].description, "beta, better");
  assert.deepEqual(edited.media_attachments[0].meta.focus, { x: 0.1, y: 0.2 });
  assert.deepEqual(edited.media_attachments[1].meta.focus, { x: -1, y: -1 }, "focus of an attached upload may change");

  // Omitting media_ids removes them all; the history keeps each revision's media.
  const bare = await s.api(alice, "PUT", `/api/v1/statuses/${st.id}`, { status: "album, no pictures" });
  assert.deepEqual(bare.media_attachments, []);
  const history = await s.api(alice, "GET", `/api/v1/statuses/${st.id}/history`);
  assert.deepEqual(
    history.map((h: { media_attachments: { id: string }[] }) => h.media_attachments.map((m) => m.id)),
    [[a], [b, a], []],
  );
  // Removed from the post, they are still its (history): not reusable elsewhere, not editable.
  assert.equal((await s.req(alice, "PUT", `/api/v1/media/${a}`, { description: "sneaky" })).status, 404);
  const elsewhere = await s.req(alice, "POST", "/api/v1/statuses", { status: "reuse", media_ids: [a] });
  assert.equal(elsewhere.status, 422);
  // ...but the same post may take them back.
  const back = await s.api(alice, "PUT", `/api/v1/statuses/${st.id}`, { status: "album again", media_ids: [a] });
  assert.deepEqual(back.media_attachments.map((m: { id: string }) => m.id), [a]);
});

test("deleting a status keeps its uploads for a redraft, or removes them with delete_media", async () => {
  const before = mediaOnDisk(s).stored.length;
  const kept = await uploaded(alice);
  const st = await s.api(alice, "POST", "/api/v1/statuses", { status: "redraft me", media_ids: [kept] });
  const deleted = await s.api(alice, "DELETE", `/api/v1/statuses/${st.id}`);
  assert.equal(deleted.text, "redraft me");
  assert.deepEqual(deleted.media_attachments.map((m: { id: string }) => m.id), [kept]);
  // The upload is free again: a redraft can post it.
  const redraft = await s.api(alice, "POST", "/api/v1/statuses", { status: "redrafted", media_ids: [kept] });
  assert.deepEqual(redraft.media_attachments.map((m: { id: string }) => m.id), [kept]);

  const img = await upload(s, alice, await webp(), { type: "image/webp" });
  const gone = await s.api(alice, "POST", "/api/v1/statuses", { status: "bye", media_ids: [img.body.id] });
  assert.equal(mediaOnDisk(s).stored.length, before + 4);
  await s.api(alice, "DELETE", `/api/v1/statuses/${gone.id}?delete_media=true`);
  assert.equal((await s.req(alice, "GET", `/api/v1/media/${img.body.id}`)).status, 404, "the row went with the status");
  await s.drainJobs(); // media.remove_files
  assert.equal((await fetch(img.body.url)).status, 404);
  assert.equal(mediaOnDisk(s).stored.length, before + 2);
});

test("a photo keeps its details through posting: masto-style clients read meta.small and blurhash from the status", async () => {
  const res = await upload(s, alice, await phoneJpeg(), { type: "image/jpeg", fields: { description: "sideways", focus: "0.5,0.5" } });
  const st = await s.api(alice, "POST", "/api/v1/statuses", { status: "phone pic", media_ids: [res.body.id], sensitive: true });
  const [m] = st.media_attachments;
  assert.deepEqual(m, res.body);
  assert.equal(st.sensitive, true);
});
