import { test } from "node:test";
import assert from "node:assert/strict";
import { htmlToPlainText } from "../../src/lib/html-text.ts";
import { MAX_MATCHED_CHARS, statusSearchText } from "../../src/storage/filter-rules.ts";
import type { MediaAttachment } from "../../src/storage/media-attachments.ts";
import type { Status } from "../../src/storage/statuses.ts";

// The text filters match a status against: Mastodon's Status#searchable_text.

const status = (s: Partial<Status>) => ({ local: true, text: "", content: "", spoilerText: "", ...s }) as Status;
const media = (...descriptions: (string | null)[]) => descriptions.map((description) => ({ description }) as MediaAttachment);

test("content warning, text, poll options and media descriptions, joined by blank lines", () => {
  const s = status({ spoilerText: "CW", text: "the source *text*", content: "<p>the source <em>text</em></p>" });
  assert.equal(statusSearchText(s, media("first", null, "third"), ["yes", "no"]), "CW\n\nthe source *text*\n\nyes\n\nno\n\nfirst\n\n\n\nthird");
  assert.equal(statusSearchText(s, undefined), "CW\n\nthe source *text*\n\n");
  // The same status object with other media is not served a stale text.
  assert.equal(statusSearchText(s, media("new")), "CW\n\nthe source *text*\n\nnew");
});

test("a remote post's text is its HTML's text, as Mastodon's PlainTextFormatter gives it", () => {
  const s = status({ local: false, content: '<p>Hello<br>world &amp; <a href="https://x.example/">friends</a></p><p>Second</p>' });
  assert.equal(statusSearchText(s, []), "\n\nHello\nworld & friends\nSecond\n\n");
  assert.equal(htmlToPlainText("<p>a<br><br>b</p>"), "a\nb");
  assert.equal(htmlToPlainText("plain &lt;text&gt;"), "plain <text>");
  assert.equal(htmlToPlainText("no markup"), "no markup");
});

test("the matched text is bounded", () => {
  const s = status({ local: false, content: `<p>${"x".repeat(MAX_MATCHED_CHARS * 2)}</p>` });
  assert.equal(statusSearchText(s, []).length, MAX_MATCHED_CHARS);
});
