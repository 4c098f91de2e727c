// Remote text is bounded before the expensive work (issue 9 §1): HTML is cut to
// MAX_REMOTE_HTML and refused when nested deeper than Mastodon's parser goes, content
// warnings and hashtag names are bounded, profile fields are cut where Mastodon cuts them.
import { test } from "node:test";
import assert from "node:assert/strict";
import { parseApActor } from "../../src/federation/parse/actor.ts";
import { MAX_REMOTE_HTML, remoteHtmlToText, sanitizeRemoteHtml } from "../../src/federation/parse/html.ts";
import { parseApNote } from "../../src/federation/parse/note.ts";
import { FederationError, type ApObject } from "../../src/federation/types.ts";

const note = (extra: Record<string, unknown>): ApObject => ({
  id: "https://remote.example/notes/1",
  type: "Note",
  attributedTo: "https://remote.example/users/bob",
  content: "<p>hi</p>",
  ...extra,
});
const actor = (extra: Record<string, unknown>): ApObject => ({
  id: "https://remote.example/users/bob",
  type: "Person",
  preferredUsername: "bob",
  inbox: "https://remote.example/users/bob/inbox",
  ...extra,
});

test("remote HTML is cut before a tag once past MAX_REMOTE_HTML", () => {
  const paragraph = "<p>herons &amp; egrets <b>x</b></p>"; // 34 characters
  const html = paragraph.repeat(Math.ceil((2 * MAX_REMOTE_HTML) / paragraph.length));
  const out = sanitizeRemoteHtml(html);
  assert.ok(out.length <= MAX_REMOTE_HTML && out.length > MAX_REMOTE_HTML - 1024, String(out.length));
  assert.ok(out.endsWith("</p>"));
  assert.equal(sanitizeRemoteHtml(paragraph.repeat(100)), paragraph.repeat(100));
  assert.ok(remoteHtmlToText(html).length < MAX_REMOTE_HTML);
});

test("HTML nested deeper than 400 elements is refused, 400 are fine", () => {
  assert.equal(sanitizeRemoteHtml(`${"<b>".repeat(399)}x`), `${"<b>".repeat(399)}x${"</b>".repeat(399)}`);
  assert.throws(() => sanitizeRemoteHtml(`${"<b>".repeat(401)}x`), (e: unknown) => e instanceof FederationError && e.permanent);
  assert.throws(() => remoteHtmlToText("<span>".repeat(300_000)), FederationError);
  // Siblings are not nesting: a long flat document is fine.
  assert.equal(sanitizeRemoteHtml("<b>x</b>".repeat(1000)), "<b>x</b>".repeat(1000));
});

test("a Note: content nested too deeply is refused, the content warning and hashtags are bounded", () => {
  assert.throws(() => parseApNote(note({ content: "<b>".repeat(100_000) })), (e: unknown) => e instanceof FederationError && e.permanent);
  const n = parseApNote(
    note({
      summary: "w".repeat(100_000),
      tag: [
        { type: "Hashtag", name: `#${"a".repeat(256)}` },
        { type: "Hashtag", name: `#${"a".repeat(257)}` },
        { type: "Mention", href: "https://remote.example/users/carol", name: `@${"c".repeat(5000)}` },
      ],
    }),
  );
  assert.equal(n.spoilerText, "w".repeat(64 * 1024));
  assert.deepEqual(n.hashtags, ["a".repeat(256)]);
  assert.equal(n.mentions[0].name?.length, 2048);
  // An Article's title is cut like a display name, so its link still fits.
  const a = parseApNote(note({ type: "Article", name: "t".repeat(100_000), url: "https://remote.example/a" }));
  assert.ok(a.content.startsWith(`<p><strong>${"t".repeat(2048)}</strong></p>`));
  assert.ok(a.content.includes('href="https://remote.example/a"'));
});

test("an actor: fields cut at 2 047 characters like Mastodon's, a bio nested too deeply left out", () => {
  const a = parseApActor(
    actor({
      summary: "<b>".repeat(1000),
      attachment: [{ type: "PropertyValue", name: ` ${"n".repeat(3000)} `, value: ` ${"v".repeat(3000)}` }],
    }),
  );
  assert.equal(a.note, "");
  assert.deepEqual(a.fields, [{ name: "n".repeat(2047), value: "v".repeat(2047) }]);
  const deep = parseApActor(actor({ attachment: [{ type: "PropertyValue", name: "deep", value: "<i>".repeat(500) }] }));
  assert.deepEqual(deep.fields, [{ name: "deep", value: "" }]);
});
