import { test } from "node:test";
import assert from "node:assert/strict";
import {
  countTextLength,
  escapeHtml,
  extractMentions,
  extractUrls,
  formatPlainText,
  linkHtml,
} from "../../src/lib/text-html.ts";

const link = (href: string, prefix: string, shown: string, hidden = "", cls = "", rel = "nofollow noopener") =>
  `<a href="${href}" target="_blank" rel="${rel}" translate="no"><span class="invisible">${prefix}</span>` +
  `<span class="${cls}">${shown}</span><span class="invisible">${hidden}</span></a>`;

test("paragraphs, line breaks and escaping", () => {
  assert.equal(formatPlainText(""), "");
  assert.equal(formatPlainText("  \n\n "), "");
  assert.equal(formatPlainText("one"), "<p>one</p>");
  assert.equal(formatPlainText("line one\nline two\n\nsecond paragraph"), "<p>line one<br />line two</p><p>second paragraph</p>");
  // Three or more newlines still make one paragraph break; CRLF is normalised.
  assert.equal(formatPlainText("a\r\n\r\n\r\nb\rc"), "<p>a</p><p>b<br />c</p>");
  assert.equal(formatPlainText(`New paragraph & <b>escaped</b> "q" 'a'`), "<p>New paragraph &amp; &lt;b&gt;escaped&lt;/b&gt; &quot;q&quot; &#39;a&#39;</p>");
  assert.equal(escapeHtml(`<&>"'`), "&lt;&amp;&gt;&quot;&#39;");
});

test("short link markup (spec example)", () => {
  assert.equal(
    formatPlainText("https://roost.example/about"),
    `<p>${link("https://roost.example/about", "https://", "roost.example/about")}</p>`,
  );
});

test("long links: www. hidden, 30 characters shown, the rest hidden behind an ellipsis", () => {
  assert.equal(
    linkHtml("https://www.example.com/a/very/long/path/that/keeps/going?x=1"),
    link(
      "https://www.example.com/a/very/long/path/that/keeps/going?x=1",
      "https://www.",
      "example.com/a/very/long/path/t",
      "hat/keeps/going?x=1",
      "ellipsis",
    ),
  );
  // Exactly 31 characters after the prefix: shown whole, no ellipsis.
  const u31 = "http://" + "a".repeat(23) + ".example";
  assert.equal(linkHtml(u31), link(u31, "http://", "a".repeat(23) + ".example"));
  // 32: cut after 30.
  const u32 = "http://" + "b".repeat(24) + ".example";
  assert.equal(linkHtml(u32), link(u32, "http://", "b".repeat(24) + ".examp", "le", "ellipsis"));
});

test("profile field links get rel=me and no paragraphs", () => {
  assert.equal(
    formatPlainText("see https://alice.example/me", { multiline: false, relMe: true }),
    "see " + link("https://alice.example/me", "https://", "alice.example/me", "", "", "nofollow noopener me"),
  );
});

test("which URLs are links", () => {
  const urls = (t: string) => extractUrls(t).map((u) => u.url);
  assert.deepEqual(urls("see https://example.com/a_(b) and http://www.foo.org/x?y=1."), [
    "https://example.com/a_(b)",
    "http://www.foo.org/x?y=1",
  ]);
  assert.deepEqual(urls("(https://ex.example/path), https://x.example/a;"), ["https://ex.example/path", "https://x.example/a"]);
  assert.deepEqual(urls("go to gemini://gem.example/x! now"), ["gemini://gem.example/x"]);
  // Scheme required; no e-mail, localhost or bare IPs; not glued to a word, @, $ or #.
  assert.deepEqual(urls("example.com me@x.example http://localhost/ https://10.0.0.1/ xhttps://a.example @https://b.example"), []);
  // Text around a link stays escaped; the link itself is escaped in attributes.
  assert.equal(
    formatPlainText("<https://x.example/?a=1&b=2>"),
    `<p>&lt;${link("https://x.example/?a=1&amp;b=2", "https://", "x.example/?a=1&amp;b=2")}&gt;</p>`,
  );
});

test("extractors add entities; overlapping ones are dropped", () => {
  const tags = (text: string) =>
    [...text.matchAll(/#(\w+)/g)].map((m) => ({ start: m.index, end: m.index + m[0].length, html: `<a class="hashtag">#${m[1]}</a>` }));
  assert.equal(
    formatPlainText("hi #birds https://x.example/#frag", { extractors: [tags] }),
    `<p>hi <a class="hashtag">#birds</a> ${link("https://x.example/#frag", "https://", "x.example/#frag")}</p>`,
  );
});

test("mentions are found where Mastodon finds them", () => {
  assert.deepEqual(extractMentions("hi @alice and @Bob@Remote.Example, me@x.example https://x.example/@z"), [
    { start: 3, end: 9, username: "alice", domain: null },
    { start: 14, end: 33, username: "Bob", domain: "remote.example" },
  ]);
});

test("length counting: graphemes, URLs as 23, remote mentions as @user", () => {
  assert.equal(countTextLength("abc"), 3);
  assert.equal(countTextLength("https://example.com/" + "a".repeat(100)), 23);
  assert.equal(countTextLength("@bob@remote.example hi"), 7);
  assert.equal(countTextLength("👩‍👩‍👧🇫🇷é"), 3);
  assert.equal(countTextLength("x".repeat(500)), 500);
});
