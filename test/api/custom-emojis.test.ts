import { test } from "node:test";
import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { randomBytes } from "node:crypto";
import sharp from "sharp";
import { startTestServer } from "../helpers/server.ts";
import { createCustomEmoji } from "../../src/services/custom-emojis.ts";
import { findEmojisByShortcodes } from "../../src/storage/custom-emojis.ts";
import { toApiCustomEmoji } from "../../src/serializers/custom-emoji.ts";

const PUBLIC_5_MIN = "public, max-age=300, stale-while-revalidate=30, stale-if-error=86400";

const image = (format: "png" | "gif" | "webp" | "jpeg") =>
  sharp({ create: { width: 16, height: 16, channels: 4, background: { r: 200, g: 60, b: 20, alpha: 1 } } })
    .toFormat(format)
    .toBuffer();

test("custom emojis: listed local emojis with static PNGs; unlisted ones only in posts", async (t) => {
  const s = await startTestServer();
  t.after(() => s.close());
  const alice = await s.user("alice");
  const blob = await createCustomEmoji(s.app, { shortcode: "blobcat", data: await image("png"), contentType: "image/png", category: "Blobs" });
  const party = await createCustomEmoji(s.app, { shortcode: "party_parrot", data: await image("gif"), contentType: "image/gif" });
  await createCustomEmoji(s.app, { shortcode: "secret", data: await image("webp"), contentType: "image/webp", visibleInPicker: false });

  const res = await s.req(alice, "GET", "/api/v1/custom_emojis");
  assert.equal(res.status, 200);
  assert.equal(res.headers.get("cache-control"), PUBLIC_5_MIN);
  const base = s.app.baseUrl;
  // Stored under random names (no URL guessable from an id), the static PNG beside each.
  const fileUrl = (e: { file: string | null }, suffix = "") => `${base}/system/${e.file!.replace(/\.[a-z]+$/, suffix)}`;
  assert.match(blob.file!, /^emojis\/[A-Za-z0-9_-]{12,}\.png$/);
  assert.doesNotMatch(blob.file!, new RegExp(blob.id));
  assert.deepEqual(res.body, [
    {
      shortcode: "blobcat",
      url: fileUrl(blob, ".png"),
      static_url: fileUrl(blob, "_static.png"),
      visible_in_picker: true,
      category: "Blobs",
    },
    // No category: the key is left out, as Mastodon does.
    {
      shortcode: "party_parrot",
      url: fileUrl(party, ".gif"),
      static_url: fileUrl(party, "_static.png"),
      visible_in_picker: true,
    },
  ]);
  // The files are under media/emojis/; the static version is a PNG.
  assert.ok(existsSync(join(s.app.mediaDir, party.file!)));
  const staticPng = readFileSync(join(s.app.mediaDir, party.file!.replace(/\.gif$/, "_static.png")));
  assert.equal(staticPng.subarray(1, 4).toString("latin1"), "PNG");

  // Unlisted emojis still render in posts: the lookup finds them and says visible_in_picker false.
  const found = findEmojisByShortcodes(s.app.db, ["secret", "blobcat", "nope"], null);
  assert.deepEqual(found.map((e) => e.shortcode), ["blobcat", "secret"]);
  const secret = toApiCustomEmoji(s.app, found[1]);
  assert.equal(secret.visible_in_picker, false);
  assert.equal(secret.url, `${base}/system/${found[1].file}`);
  assert.match(found[1].file!, /^emojis\/.+\.webp$/);
  assert.equal("category" in toApiCustomEmoji(s.app, found[0]), false);
  assert.deepEqual(findEmojisByShortcodes(s.app.db, ["blobcat"], "remote.example"), []);
});

test("custom emojis: shortcode, type, size and uniqueness rules", async (t) => {
  const s = await startTestServer();
  t.after(() => s.close());
  const png = await image("png");
  const make = (over: Partial<Parameters<typeof createCustomEmoji>[1]>) =>
    createCustomEmoji(s.app, { shortcode: "ok_emoji", data: png, contentType: "image/png", ...over });

  await assert.rejects(make({ shortcode: "a" }), (e: any) => e.status === 422 && /Shortcode is too short/.test(e.error));
  await assert.rejects(make({ shortcode: "bad-code" }), /Validation failed: Shortcode is invalid/);
  await assert.rejects(make({ shortcode: "has space" }), /Shortcode is invalid/);
  await assert.rejects(make({ data: await image("jpeg"), contentType: "image/jpeg" }), /Image content type is invalid/);
  // The declared type must match the bytes.
  await assert.rejects(make({ contentType: "image/gif" }), /Image content type is invalid/);
  await assert.rejects(make({ data: Buffer.from("GIF89a not really an image") , contentType: "image/gif" }), /Image could not be processed/);

  // At most 50 KB: noise does not compress, so this PNG is well over the limit.
  const big = await sharp(randomBytes(200 * 200 * 3), { raw: { width: 200, height: 200, channels: 3 } }).png().toBuffer();
  assert.ok(big.length > 50 * 1024);
  await assert.rejects(make({ data: big }), (e: any) => e.status === 422 && e.error === "Validation failed: Image file size must be at most 50 KB");
  // Exactly 50 KB is accepted (padding after IEND is ignored by decoders).
  const padded = Buffer.concat([png, Buffer.alloc(50 * 1024 - png.length)]);
  assert.equal(padded.length, 51200);
  await make({ shortcode: "exactly_50kb", data: padded });

  await make({});
  await assert.rejects(make({}), /Shortcode has already been taken/);
  // Case matters, as in Mastodon.
  await make({ shortcode: "OK_emoji" });
  const list = await s.api(null, "GET", "/api/v1/custom_emojis");
  assert.deepEqual(list.map((e: { shortcode: string }) => e.shortcode), ["OK_emoji", "exactly_50kb", "ok_emoji"]);
});

test("custom emojis: not cached publicly when the instance disallows anonymous API access", async (t) => {
  const s = await startTestServer({ config: { publicApi: false } });
  t.after(() => s.close());
  const alice = await s.user("alice");
  await createCustomEmoji(s.app, { shortcode: "blobcat", data: await image("png"), contentType: "image/png" });
  const anon = await s.req(null, "GET", "/api/v1/custom_emojis");
  assert.equal(anon.status, 200);
  assert.equal(anon.headers.get("cache-control"), "private, no-store");
  assert.equal(anon.body.length, 1);
  const authed = await s.req(alice, "GET", "/api/v1/custom_emojis");
  assert.equal(authed.headers.get("cache-control"), "private, no-store");
});

test("custom emojis in a post, its CW, a display name and a bio fill `emojis`; the Note carries Emoji tags", async (t) => {
  const s = await startTestServer();
  t.after(() => s.close());
  const alice = await s.user("alice");
  const blob = await createCustomEmoji(s.app, { shortcode: "blobcat", data: await image("png"), contentType: "image/png" });
  const secret = await createCustomEmoji(s.app, { shortcode: "secret", data: await image("gif"), contentType: "image/gif", visibleInPicker: false });
  const base = s.app.baseUrl;
  const entity = (e: typeof blob) => ({
    shortcode: e.shortcode,
    url: `${base}/system/${e.file}`,
    static_url: `${base}/system/${e.file!.replace(/\.[a-z]+$/, "_static.png")}`,
    visible_in_picker: e.visibleInPicker,
  });

  const st = await s.api(alice, "POST", "/api/v1/statuses", { status: "hi :blobcat: :nope: :secret::blobcat:", spoiler_text: "cw :secret:" });
  // Each known emoji once (text and CW); unknown ones stay text.
  assert.equal(st.emojis.length, 2);
  assert.deepEqual(new Set(st.emojis.map((e: { shortcode: string }) => e.shortcode)), new Set(["blobcat", "secret"]));
  for (const e of st.emojis) assert.deepEqual(e, entity(e.shortcode === "blobcat" ? blob : secret));

  const me = await s.api(alice, "PATCH", "/api/v1/accounts/update_credentials", { display_name: "Alice :blobcat:", note: "I like :secret:" });
  assert.deepEqual(new Set(me.emojis.map((e: { shortcode: string }) => e.shortcode)), new Set(["blobcat", "secret"]));

  // The Note as peers fetch it: one Emoji tag per emoji, its id resolvable, icon our file.
  const res = await fetch(st.uri, { headers: { accept: "application/activity+json" } });
  const note = await res.json();
  const tags = (note.tag as { type: string; name: string; id: string; icon: { url: string; mediaType: string } }[]).filter((x) => x.type === "Emoji");
  assert.deepEqual(tags.map((x) => x.name).sort(), [":blobcat:", ":secret:"]);
  const tag = tags.find((x) => x.name === ":secret:")!;
  assert.deepEqual([tag.id, tag.icon.url, tag.icon.mediaType], [`${base}/emojis/${secret.id}`, `${base}/system/${secret.file}`, "image/gif"]);
  const obj = await (await fetch(tag.id, { headers: { accept: "application/activity+json" } })).json();
  assert.deepEqual([obj.type, obj.name, obj.icon.url], ["Emoji", ":secret:", `${base}/system/${secret.file}`]);
});
