// Remote custom emoji images copied here (issue 10 part 7): the 50 KB limit and the PNG/GIF/WebP
// rule apply to them too; a refused one is left out of `emojis` and its shortcode stays text.
import { test } from "node:test";
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import sharp from "sharp";
import { startTestServer } from "../helpers/server.ts";
import { startFakeRemote } from "../helpers/fake-remote.ts";
import { resolveAccountByUri } from "../../src/federation/resolve/accounts.ts";
import { findEmojiByShortcode } from "../../src/storage/custom-emojis.ts";

const emojiTag = (origin: string, code: string, path: string) => ({
  type: "Emoji",
  id: `${origin}/emojis/${code}`,
  name: `:${code}:`,
  icon: { type: "Image", mediaType: "image/png", url: `${origin}${path}` },
});

test("remote emoji: copied with a static PNG; too large, not an image, or missing: left as text", async (t) => {
  const s = await startTestServer();
  const remote = await startFakeRemote();
  t.after(() => Promise.all([s.close(), remote.close()]));
  const o = remote.origin;
  const frame = (r: number) => ({ create: { width: 8, height: 8, channels: 4 as const, background: { r, g: 0, b: 0, alpha: 1 } } });
  const gif = await sharp([await sharp(frame(255)).png().toBuffer(), await sharp(frame(0)).png().toBuffer()], { join: { animated: true } })
    .gif()
    .toBuffer();
  // Noise does not compress: well over 50 KB.
  const big = await sharp(randomBytes(200 * 200 * 3), { raw: { width: 200, height: 200, channels: 3 } }).png().toBuffer();
  assert.ok(big.length > 50 * 1024);
  remote.serveFile("/e/ok.png", await sharp(frame(90)).png().toBuffer(), "image/png");
  remote.serveFile("/e/party.gif", gif, "image/gif");
  remote.serveFile("/e/big.png", big, "image/png");
  remote.serveFile("/e/fake.png", "<html>not an image</html>", "image/png");
  const bob = remote.actor("bob", {
    extra: {
      name: "Bob :ok: :party: :big: :fake: :gone:",
      tag: [
        emojiTag(o, "ok", "/e/ok.png"),
        emojiTag(o, "party", "/e/party.gif"),
        emojiTag(o, "big", "/e/big.png"),
        emojiTag(o, "fake", "/e/fake.png"),
        emojiTag(o, "gone", "/e/gone.png"),
      ],
    },
  });
  const account = await resolveAccountByUri(s.app, bob.id);
  assert.ok(account);
  await s.drainJobs();

  const viewer = await s.user("alice");
  const api = await s.api(viewer, "GET", `/api/v1/accounts/${account.id}`);
  assert.equal(api.display_name, "Bob :ok: :party: :big: :fake: :gone:");
  assert.deepEqual(api.emojis.map((e: { shortcode: string }) => e.shortcode), ["ok", "party"]);
  const party = api.emojis[1];
  assert.match(party.url, /\/system\/emojis\/[^/]+\.gif$/);
  assert.match(party.static_url, /\/system\/emojis\/[^/]+_static\.png$/);
  const row = findEmojiByShortcode(s.app.db, "party", remote.domain)!;
  assert.equal(row.contentType, "image/gif");
  assert.equal(row.imageSize, gif.length);
  assert.deepEqual(readFileSync(join(s.app.mediaDir, row.file!)), gif);
  const still = await sharp(readFileSync(join(s.app.mediaDir, row.file!.replace(/\.gif$/, "_static.png")))).metadata();
  assert.equal(still.format, "png");
  assert.equal(still.pages ?? 1, 1);

  // Refusals are recorded; the big one was never read past the limit; nothing stored for them.
  assert.equal(findEmojiByShortcode(s.app.db, "big", remote.domain)?.fetchError, "too_large");
  assert.equal(findEmojiByShortcode(s.app.db, "fake", remote.domain)?.fetchError, "invalid");
  assert.equal(findEmojiByShortcode(s.app.db, "gone", remote.domain)?.fetchError, "invalid");
  assert.equal(findEmojiByShortcode(s.app.db, "big", remote.domain)?.file, null);

  // A refetch of the profile with the same images fetches none of them again.
  const fetched = () => remote.requests.filter((r) => r.path.startsWith("/e/")).length;
  const before = fetched();
  assert.equal(before, 5);
  await resolveAccountByUri(s.app, bob.id, { refresh: true });
  await s.drainJobs();
  assert.equal(fetched(), before);
  assert.ok(existsSync(join(s.app.mediaDir, row.file!)));
});
