// parseApNote against Notes as Mastodon, GoToSocial, Akkoma/Pleroma and Misskey send them
// (test/fixtures/remote/<software>/note-*.json), converted types, addressing and bad documents.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { visibilityFromAddressing } from "../../src/federation/parse/addressing.ts";
import { validBlurhash } from "../../src/federation/parse/attachments.ts";
import { isNoteLike, parseApNote } from "../../src/federation/parse/note.ts";
import { AS_PUBLIC, FederationError, type ApObject } from "../../src/federation/types.ts";

const fixture = (path: string): ApObject => JSON.parse(readFileSync(new URL(`../fixtures/remote/${path}`, import.meta.url), "utf8"));
const visibilityOf = (path: string, followers: string) => {
  const n = parseApNote(fixture(path));
  return visibilityFromAddressing(n.to, n.cc, followers);
};
const A = 'rel="nofollow noopener" target="_blank"';

test("Mastodon: a public reply with CW, mention, hashtag, emoji and an image", () => {
  const n = parseApNote(fixture("mastodon/note-public-reply.json"));
  assert.equal(n.uri, "https://mastodon.example/users/alice/statuses/115021");
  assert.equal(n.type, "Note");
  assert.equal(n.url, "https://mastodon.example/@alice/115021");
  assert.equal(n.attributedTo, "https://mastodon.example/users/alice");
  assert.equal(
    n.content,
    `<p><span class="h-card" translate="no"><a href="https://roost.example/@bob" class="u-url mention" ${A}>@<span>bob</span></a></span> a heron! ` +
      `<a href="https://mastodon.example/tags/Birds" class="mention hashtag" ${A}>#<span>Birds</span></a> :heron:</p>`,
  );
  assert.equal(n.spoilerText, "bird photo");
  assert.equal(n.sensitive, true);
  assert.equal(n.language, "en");
  assert.equal(n.inReplyTo, "https://roost.example/users/bob/statuses/99");
  assert.equal(n.published, Date.parse("2026-02-01T09:30:12Z"));
  assert.equal(n.updated, null);
  assert.deepEqual(n.to, [AS_PUBLIC]);
  assert.deepEqual(n.cc, ["https://mastodon.example/users/alice/followers", "https://roost.example/users/bob"]);
  assert.deepEqual(n.mentions, [{ href: "https://roost.example/users/bob", name: "@bob@roost.example" }]);
  assert.deepEqual(n.hashtags, ["Birds"]);
  assert.deepEqual(n.emojis, [
    { shortcode: "heron", uri: "https://mastodon.example/emojis/17", url: "https://mastodon.example/system/custom_emojis/images/heron.png", updated: Date.parse("2026-01-02T10:00:00Z") },
  ]);
  assert.deepEqual(n.attachments, [
    {
      type: "image",
      url: "https://mastodon.example/system/media_attachments/files/115/021/original/heron.jpg",
      mediaType: "image/jpeg",
      description: "A grey heron standing in shallow water",
      blurhash: "UFF~ggxu00NG~qWBRjt7?bRjIUt7_3WBRjof",
      width: 1600,
      height: 1200,
      focus: [0, 0.12],
      thumbnailUrl: null,
    },
  ]);
  // FEP-7888 `context` wins over the OStatus `conversation`.
  assert.equal(n.conversation, "https://mastodon.example/contexts/1-88");
  assert.equal(n.likesCount, 3);
  assert.equal(n.sharesCount, 1);
  assert.equal(visibilityOf("mastodon/note-public-reply.json", "https://mastodon.example/users/alice/followers"), "public");
});

test("Mastodon: a direct message, a language tag with a region, an edited unlisted post", () => {
  const dm = parseApNote(fixture("mastodon/note-direct.json"));
  assert.equal(dm.spoilerText, "");
  assert.equal(dm.language, "de");
  assert.equal(dm.conversation, "tag:mastodon.example,2026-02-01:objectId=5600:objectType=Conversation");
  assert.deepEqual(dm.attachments, []);
  assert.equal(visibilityOf("mastodon/note-direct.json", "https://mastodon.example/users/alice/followers"), "direct");

  const edited = parseApNote(fixture("mastodon/note-edited.json"));
  assert.equal(edited.updated, Date.parse("2026-02-01T11:05:30Z"));
  assert.equal(edited.content, "<p>fixed the typo</p>");
  assert.equal(visibilityOf("mastodon/note-edited.json", "https://mastodon.example/users/alice/followers"), "unlisted");
});

test("GoToSocial: single values instead of arrays, Image attachment with focal point, interaction policy ignored", () => {
  const n = parseApNote(fixture("gotosocial/note-public.json"));
  assert.deepEqual(n.to, [AS_PUBLIC]);
  assert.deepEqual(n.cc, ["https://gts.example/users/the_mighty_zork/followers"]);
  assert.deepEqual(n.hashtags, ["welcome"]);
  assert.equal(n.language, "en");
  assert.equal(n.spoilerText, "");
  assert.equal(n.content, `<p>hello <a href="https://gts.example/tags/welcome" class="mention hashtag" ${A}>#<span>Welcome</span></a> everyone</p>`);
  assert.equal(n.attachments.length, 1);
  assert.equal(n.attachments[0].type, "image");
  assert.equal(n.attachments[0].description, "Black and white image of some 50's style text saying: Welcome On Board");
  assert.equal(n.attachments[0].blurhash, "LIIE|gRj00WB-;j[t7j[4nWBj[Rj");
  assert.deepEqual(n.attachments[0].focus, [-0.5, 0.5]);
  assert.equal(visibilityOf("gotosocial/note-public.json", "https://gts.example/users/the_mighty_zork/followers"), "public");
});

test("GoToSocial: followers-only reply with video, audio and document; alt text from summary, else name", () => {
  const n = parseApNote(fixture("gotosocial/note-followers-only.json"));
  assert.equal(n.spoilerText, "cw: cats");
  assert.equal(n.sensitive, true);
  assert.equal(n.inReplyTo, "https://gts.example/users/the_mighty_zork/statuses/01F8MHAAY43M6RJ473VQFCVH37");
  assert.deepEqual(
    n.attachments.map((a) => [a.type, a.mediaType, a.description]),
    [
      ["video", "video/mp4", "A cat jumping off a shelf"],
      ["audio", "audio/mpeg", "Birdsong at dawn"],
      ["unknown", "application/pdf", null],
    ],
  );
  assert.equal(visibilityOf("gotosocial/note-followers-only.json", "https://gts.example/users/the_mighty_zork/followers"), "private");
});

test("Akkoma: Link-array attachment url, context, data-* attributes and quoteUrl dropped, no url", () => {
  const n = parseApNote(fixture("akkoma/note-public.json"));
  assert.equal(n.url, null);
  assert.equal(n.conversation, "https://akkoma.example/contexts/a1b2c3d4-0000-4000-8000-000000000001");
  assert.equal(
    n.content,
    `<span class="h-card"><a class="u-url mention" href="https://roost.example/@bob" ${A}>@<span>bob</span></a></span> look at this ` +
      `<a class="hashtag" href="https://akkoma.example/tag/fedi" ${A}>#Fedi</a> :blobcat:`,
  );
  assert.equal(n.sensitive, false);
  assert.equal(n.published, Date.parse("2024-05-10T18:21:03.441Z"));
  assert.deepEqual(n.attachments.map((a) => [a.url, a.mediaType, a.type, a.description]), [
    ["https://akkoma.example/media/6a5e2e.png", "image/png", "image", "screenshot of the settings page"],
  ]);
  assert.deepEqual(n.emojis.map((e) => [e.shortcode, e.url]), [["blobcat", "https://akkoma.example/emoji/blobcat.png"]]);
  assert.equal(visibilityOf("akkoma/note-public.json", "https://akkoma.example/users/lain/followers"), "public");
});

test("Pleroma: the short spelling of Public in cc makes an unlisted post", () => {
  const n = parseApNote(fixture("akkoma/note-as-public.json"));
  assert.deepEqual(n.cc, [AS_PUBLIC]);
  assert.equal(n.content, "quiet public post");
  assert.equal(visibilityOf("akkoma/note-as-public.json", "https://pleroma.example/users/kaniini/followers"), "unlisted");
  const asPublic = parseApNote({ ...fixture("akkoma/note-as-public.json"), to: ["as:Public"], cc: [] });
  assert.deepEqual(asPublic.to, [AS_PUBLIC]);
});

test("Misskey: HTML content shown, _misskey_content and quotes ignored, emoji tag stored", () => {
  const n = parseApNote(fixture("misskey/note-public.json"));
  assert.equal(
    n.content,
    `<p><a href="https://roost.example/@bob" class="u-url mention" ${A}>@bob@roost.example</a> nyaa<br>second line ` +
      `<a href="https://misskey.example/tags/misskey" ${A}>#Misskey</a> :blobcat_hug:</p>`,
  );
  assert.equal(n.spoilerText, "");
  assert.equal(n.url, null);
  assert.deepEqual(n.attachments.map((a) => [a.type, a.description]), [["image", null]]);
  assert.deepEqual(n.emojis.map((e) => e.shortcode), ["blobcat_hug"]);
  assert.equal(visibilityOf("misskey/note-public.json", "https://misskey.example/users/9ab0cd1ef2/followers"), "public");

  const specified = parseApNote(fixture("misskey/note-specified.json"));
  assert.equal(specified.spoilerText, "secret");
  assert.deepEqual(specified.to, ["https://roost.example/users/bob", "https://roost.example/users/carol"]);
  assert.equal(visibilityOf("misskey/note-specified.json", "https://misskey.example/users/9ab0cd1ef2/followers"), "direct");
});

test("an Article is converted: title, summary and a link, and the summary is no content warning", () => {
  const n = parseApNote(fixture("wordpress/note-article.json"));
  assert.equal(n.type, "Article");
  assert.equal(n.spoilerText, "");
  assert.equal(n.language, "en");
  assert.equal(
    n.content,
    "<p><strong>Herons of the marsh</strong></p>" +
      "<p>A field guide to the herons you can see in spring &amp; summer.</p>" +
      '<p><a href="https://blog.example/2026/03/01/herons-of-the-marsh/" rel="nofollow noopener" translate="no" target="_blank">' +
      '<span class="invisible">https://</span><span class="ellipsis">blog.example/2026/03/01/herons</span><span class="invisible">-of-the-marsh/</span></a></p>',
  );
  assert.deepEqual(n.hashtags, ["birds"]);
  assert.equal(n.attachments[0].description, "A heron in flight");
  // Without a url the link goes to the id; without a name there is no heading.
  const page = parseApNote({ id: "https://blog.example/p/1", type: "Page", summary: "<p>Intro <b>text</b></p>" });
  assert.equal(page.content, '<p>Intro <b>text</b></p><p><a href="https://blog.example/p/1" rel="nofollow noopener" translate="no" target="_blank"><span class="invisible">https://</span><span class="">blog.example/p/1</span><span class="invisible"></span></a></p>');
  for (const type of ["Image", "Audio", "Video", "Event"]) assert.equal(parseApNote({ id: "https://x.example/1", type }).type, type);
});

test("visibility matrix (AP §4.3 incoming), limited posts shown as private", () => {
  const followers = "https://r.example/users/a/followers";
  const bob = "https://roost.example/users/bob";
  assert.equal(visibilityFromAddressing([AS_PUBLIC], [followers], followers), "public");
  assert.equal(visibilityFromAddressing(["as:Public"], [], followers), "public");
  assert.equal(visibilityFromAddressing(["Public", followers], [], followers), "public");
  assert.equal(visibilityFromAddressing([followers], [AS_PUBLIC, bob], followers), "unlisted");
  assert.equal(visibilityFromAddressing([followers], ["Public"], followers), "unlisted");
  assert.equal(visibilityFromAddressing([followers], [bob], followers), "private");
  // Followers in cc only is not followers-only.
  assert.equal(visibilityFromAddressing([bob], [followers], followers), "direct");
  assert.equal(visibilityFromAddressing([bob], [], followers), "direct");
  assert.equal(visibilityFromAddressing([followers], [], null), "direct");
  assert.equal(visibilityFromAddressing([], [], followers), "direct");
  assert.equal(visibilityFromAddressing([bob], [], followers, true), "private");
  assert.equal(visibilityFromAddressing([AS_PUBLIC], [], followers, true), "public");
});

test("to/cc come from the activity when the object has none", () => {
  const activity = { type: "Create", to: ["as:Public"], cc: "https://r.example/users/a/followers" };
  const n = parseApNote({ id: "https://r.example/notes/1", type: "Note", content: "x" }, activity);
  assert.deepEqual(n.to, [AS_PUBLIC]);
  assert.deepEqual(n.cc, ["https://r.example/users/a/followers"]);
  const own = parseApNote({ id: "https://r.example/notes/1", type: "Note", to: [], cc: ["https://r.example/users/b"] }, activity);
  assert.deepEqual(own.to, []);
  assert.deepEqual(own.cc, ["https://r.example/users/b"]);
});

test("liberal reading: url forms, inReplyTo object, maps, bear: ids, type arrays", () => {
  const base = { id: "https://r.example/notes/1", type: "Note" };
  assert.equal(parseApNote({ ...base, url: { type: "Link", href: "https://r.example/@a/1" } }).url, "https://r.example/@a/1");
  assert.equal(
    parseApNote({ ...base, url: [{ type: "Link", mediaType: "application/activity+json", href: "https://r.example/notes/1" }, { type: "Link", mediaType: "text/html", href: "https://r.example/@a/1" }] }).url,
    "https://r.example/@a/1",
  );
  assert.equal(parseApNote({ ...base, url: "javascript:alert(1)" }).url, null);
  assert.equal(parseApNote({ ...base, inReplyTo: { id: "https://r.example/notes/0", type: "Note" } }).inReplyTo, "https://r.example/notes/0");
  const mapped = parseApNote({ ...base, contentMap: { fr: "<p>bonjour</p>" }, summaryMap: { fr: "attention" } });
  assert.deepEqual([mapped.content, mapped.spoilerText, mapped.language], ["<p>bonjour</p>", "attention", "fr"]);
  assert.equal(parseApNote({ ...base, nameMap: { ja: "x" } }).language, "ja");
  assert.equal(parseApNote({ ...base, contentMap: { "not a language": "x" } }).language, null);
  assert.equal(parseApNote({ ...base, id: "bear:?t=abc&u=https%3A%2F%2Fr.example%2Fnotes%2F2" }).uri, "https://r.example/notes/2");
  assert.equal(parseApNote({ ...base, type: ["Note", "toot:Extra"] }).type, "Note");
  assert.equal(parseApNote({ ...base, context: { id: "https://r.example/ctx/9", type: "Collection" } }).conversation, "https://r.example/ctx/9");
  const tags = parseApNote({
    ...base,
    tag: [
      { type: "Mention", href: "https://r.example/users/b", name: "@b" },
      { type: "Mention", href: "https://r.example/users/b" },
      { type: "Mention", href: "not a url" },
      { type: "Hashtag", name: "#Café" },
      { type: "Hashtag", name: "" },
      "junk",
    ],
  });
  assert.deepEqual(tags.mentions, [{ href: "https://r.example/users/b", name: "@b" }]);
  assert.deepEqual(tags.hashtags, ["Café"]);
  // A script in content never survives.
  assert.equal(parseApNote({ ...base, content: "<p>hi<script>alert(1)</script></p>" }).content, "<p>hi</p>");
});

test("attachments: at most four, Links skipped, BlurHash checked, focal point and size read, icon as thumbnail", () => {
  const doc = (n: number) => ({ type: "Document", mediaType: "image/png", url: `https://r.example/m/${n}.png` });
  const n = parseApNote({
    id: "https://r.example/notes/1",
    type: "Note",
    attachment: [
      { type: "Link", href: "https://news.example/article", mediaType: "text/html" },
      { ...doc(1), blurhash: "UFF~ggxu00NG~qWBRjt7?bRjIUt7_3WBRjof", focalPoint: [2, -0.25], width: 640, height: 480, summary: "alt", name: "ignored" },
      { ...doc(2), url: [{ type: "Link", href: "https://r.example/m/2.png", mediaType: "image/gif" }], mediaType: undefined },
      { type: "Audio", mediaType: "audio/ogg", url: "https://r.example/m/3.ogg", icon: { type: "Image", url: "https://r.example/m/3-cover.jpg" } },
      { ...doc(4), name: "x".repeat(10_050), width: -5, focalPoint: "0,0" },
      doc(5),
    ],
  });
  assert.deepEqual(n.attachments.map((a) => a.url), ["https://r.example/m/1.png", "https://r.example/m/2.png", "https://r.example/m/3.ogg", "https://r.example/m/4.png"]);
  assert.deepEqual([n.attachments[0].description, n.attachments[0].focus, n.attachments[0].width, n.attachments[0].height], ["alt", [1, -0.25], 640, 480]);
  assert.deepEqual([n.attachments[1].mediaType, n.attachments[1].type], ["image/gif", "image"]);
  assert.deepEqual([n.attachments[2].type, n.attachments[2].thumbnailUrl], ["audio", "https://r.example/m/3-cover.jpg"]);
  assert.deepEqual([n.attachments[3].description?.length, n.attachments[3].width, n.attachments[3].focus], [10_000, null, null]);
  assert.equal(parseApNote({ id: "https://r.example/n", type: "Note", attachment: { type: "Document", url: "ftp://r.example/x" } }).attachments.length, 0);

  assert.equal(validBlurhash("LIIE|gRj00WB-;j[t7j[4nWBj[Rj"), "LIIE|gRj00WB-;j[t7j[4nWBj[Rj");
  assert.equal(validBlurhash("LIIE|gRj00WB-;j[t7j[4nWBj[R"), null, "length does not match the components");
  assert.equal(validBlurhash("LIIE|gRj00WB-;j[t7j[4nWBj[R\""), null, "not base 83");
  // "~" encodes 9×9 components: more than Mastodon's 5×5.
  assert.equal(validBlurhash("~" + "0".repeat(4 + 2 * 81 - 1)), null);
  assert.equal(validBlurhash(42), null);
});

test("malformed documents are refused with a permanent FederationError", () => {
  const refused = (doc: unknown, why: string) =>
    assert.throws(
      () => parseApNote(doc as ApObject),
      (e: unknown) => e instanceof FederationError && e.permanent,
      why,
    );
  refused({ type: "Note", content: "no id" }, "missing id");
  refused({ id: "urn:uuid:1234", type: "Note" }, "id that is not http(s)");
  refused({ id: 42, type: "Note" }, "numeric id");
  refused({ id: "https://r.example/users/a", type: "Person" }, "an actor");
  refused({ id: "https://r.example/c/1", type: "ChatMessage", content: "x" }, "Pleroma chat");
  refused({ id: "https://r.example/n/1" }, "no type");
  refused(["https://r.example/n/1"], "an array");
  refused(null, "null");
  // Odd field types degrade to defaults rather than failing.
  const odd = parseApNote({ id: "https://r.example/n/1", type: "Note", content: 42, summary: ["x"], published: "yesterday", sensitive: "yes", tag: "x", to: 7 });
  assert.deepEqual([odd.content, odd.spoilerText, odd.published, odd.sensitive, odd.mentions, odd.to], ["", "", null, false, [], []]);
});

test("isNoteLike", () => {
  for (const type of ["Note", "Question", "Article", "Page", "Image", "Audio", "Video", "Event"]) assert.equal(isNoteLike({ type }), true, type);
  for (const type of ["Person", "Create", "Tombstone", "ChatMessage", "Document"]) assert.equal(isNoteLike({ type }), false, type);
  assert.equal(isNoteLike({ type: ["Object", "Note"] }), true);
});
