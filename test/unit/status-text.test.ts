import { test } from "node:test";
import assert from "node:assert/strict";
import { canonicalizeMentions, formatStatusText, mentionHandles, normalizeLanguage, statusLength } from "../../src/lib/status-text.ts";
import { extractHashtags, normalizeTag, uniqueHashtags } from "../../src/lib/tags.ts";
import type { Account } from "../../src/storage/accounts.ts";

const acct = (id: string, username: string, domain: string | null, url: string) =>
  ({ id, username, domain, url, uri: url }) as unknown as Account;
const bobRemote = acct("2", "bob", "remote.example", "https://remote.example/@bob");
const bobLocal = acct("3", "bob", null, "https://roost.example/@bob");
const opts = (mentions: Account[]) => ({ baseUrl: "https://roost.example", localDomain: "roost.example", mentions });

test("sanitization.md §2.2: the full example renders exactly", () => {
  const text = "Hi @bob@remote.example! Look: https://birds.example/heron #Birds\nSecond line.\n\nNew paragraph & <b>escaped</b>";
  assert.equal(
    formatStatusText(text, opts([bobRemote])),
    '<p>Hi <span class="h-card" translate="no"><a href="https://remote.example/@bob" class="u-url mention">@<span>bob</span></a></span>! Look: ' +
      '<a href="https://birds.example/heron" target="_blank" rel="nofollow noopener" translate="no"><span class="invisible">https://</span><span class="">birds.example/heron</span><span class="invisible"></span></a> ' +
      '<a href="https://roost.example/tags/Birds" class="mention hashtag" rel="tag">#<span>Birds</span></a><br />Second line.</p>' +
      "<p>New paragraph &amp; &lt;b&gt;escaped&lt;/b&gt;</p>",
  );
});

test("mentions: unresolved stay text, same usernames show the domain, our domain is local", () => {
  assert.equal(formatStatusText("hi @nobody@x.example", opts([])), "<p>hi @nobody@x.example</p>");
  const both = formatStatusText("@bob and @bob@remote.example", opts([bobLocal, bobRemote]));
  assert.match(both, /^<p><span class="h-card" translate="no"><a href="https:\/\/roost.example\/@bob" class="u-url mention">@<span>bob<\/span>/);
  assert.match(both, /@<span>bob@remote.example<\/span>/);
  assert.match(formatStatusText("@bob@roost.example", opts([bobLocal])), /@<span>bob<\/span>/);
  // Not mentions: e-mail addresses and URL paths.
  assert.equal(formatStatusText("me@bob.example", opts([bobLocal])), "<p>me@bob.example</p>");
  assert.deepEqual(mentionHandles("@Bob @bob@ROOST.example @x@y.example a@b", "roost.example"), [
    { username: "Bob", domain: null },
    { username: "x", domain: "y.example" },
  ]);

  const resolve = (h: { username: string; domain: string | null }) =>
    h.domain === null && h.username.toLowerCase() === "bob" ? bobLocal : h.domain === "remote.example" ? bobRemote : undefined;
  const c = canonicalizeMentions("@BOB @Bob@Remote.Example @who", "roost.example", resolve);
  assert.equal(c.text, "@bob @bob@remote.example @who");
  assert.deepEqual(c.accounts.map((a) => a.id), ["3", "2"]);
});

test("links: Mastodon's shortened markup", () => {
  const html = formatStatusText("https://www.example.com/a/very/long/path/that/keeps/going?x=1", opts([]));
  assert.equal(
    html,
    '<p><a href="https://www.example.com/a/very/long/path/that/keeps/going?x=1" target="_blank" rel="nofollow noopener" translate="no">' +
      '<span class="invisible">https://www.</span><span class="ellipsis">example.com/a/very/long/path/t</span>' +
      '<span class="invisible">hat/keeps/going?x=1</span></a></p>',
  );
  assert.equal(formatStatusText("", opts([])), "");
  assert.equal(formatStatusText("a\n\n\nb\nc", opts([])), "<p>a</p><p>b<br />c</p>");
});

test("hashtags: what counts, and normalisation", () => {
  const names = (t: string) => extractHashtags(t).map((h) => h.name);
  assert.deepEqual(names("#foo a#b #123 #foo·bar #·x https://x.example/#frag #_ok"), ["foo", "foo·bar", "_ok"]);
  assert.deepEqual(names("＃全角 #日本語"), ["全角", "日本語"]);
  assert.deepEqual(names("#foohttps://x.example"), ["foo"]);
  assert.equal(normalizeTag("Café"), "cafe");
  assert.equal(normalizeTag("ＴＡＧ"), "tag");
  assert.equal(normalizeTag("Straße"), "strasse");
  assert.equal(normalizeTag("がっこう"), "がっこう");
  assert.deepEqual(uniqueHashtags("#Birds #birds #BÍRDS #cats"), [
    { name: "birds", display: "Birds" },
    { name: "cats", display: "cats" },
  ]);
  assert.match(formatStatusText("#Café", opts([])), /href="https:\/\/roost.example\/tags\/Caf%C3%A9"/);
});

test("length: graphemes, URLs count 23, remote mentions count as @user", () => {
  assert.equal(statusLength("abc", ""), 3);
  assert.equal(statusLength("abc", "de"), 5);
  assert.equal(statusLength("https://example.com/" + "x".repeat(100), ""), 23);
  assert.equal(statusLength("@bob@remote.example", ""), 4);
  assert.equal(statusLength("👩‍👩‍👧🇫🇷", ""), 2);
});

test("language: ISO 639-1, region dropped, anything else null", () => {
  assert.equal(normalizeLanguage("en"), "en");
  assert.equal(normalizeLanguage("pt-BR"), "pt");
  assert.equal(normalizeLanguage("de_AT"), "de");
  assert.equal(normalizeLanguage("xx"), null);
  assert.equal(normalizeLanguage(""), null);
  assert.equal(normalizeLanguage(undefined), null);
});
