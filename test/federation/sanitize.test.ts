// Remote HTML sanitising, rule by rule (sanitization.md §1), with exact expected output.
import { test } from "node:test";
import assert from "node:assert/strict";
import { remoteHtmlToText, sanitizeRemoteHtml as s } from "../../src/federation/parse/html.ts";

const A = 'rel="nofollow noopener" target="_blank"';

test("§1.1 kept elements pass through unchanged", () => {
  const html =
    "<p>a<br>b</p><pre><code>x</code></pre><blockquote><p>q</p></blockquote>" +
    "<p><b>b</b><strong>s</strong><u>u</u><i>i</i><em>e</em><del>d</del><s>s</s></p>" +
    "<ul><li>one</li></ul><ol><li>two</li></ol><ruby>漢<rp>(</rp><rt>kan</rt><rp>)</rp></ruby>";
  assert.equal(s(html), html);
  assert.equal(s("<span>x</span>"), "<span>x</span>");
});

test("§1.2 attributes: lang anywhere, the per-element lists, nothing else", () => {
  assert.equal(s('<p lang="de" dir="rtl" id="x" title="t" data-x="1" style="color:red">de</p>'), '<p lang="de">de</p>');
  assert.equal(s('<b lang="fr" class="mention">b</b>'), '<b lang="fr">b</b>');
  assert.equal(s('<ol start="3" reversed type="a"><li value="5" class="h-x">x</li></ol>'), '<ol start="3" reversed><li value="5">x</li></ol>');
  assert.equal(s('<pre><code class="language-js">a &lt; b</code></pre>'), "<pre><code>a &lt; b</code></pre>");
});

test("§1.2 event handlers and style are removed (XSS)", () => {
  assert.equal(s('<p onclick="alert(1)" onmouseover="x()">hi</p>'), "<p>hi</p>");
  assert.equal(s('<a href="https://x.example/" onclick="alert(1)" style="position:fixed">x</a>'), `<a href="https://x.example/" ${A}>x</a>`);
  assert.equal(s("<IMG SRC=x onerror=alert(1)>t"), "t");
});

test("§1.2 class tokens: microformats prefixes and Mastodon's own, the rest dropped", () => {
  assert.equal(s('<p class="foo h-card bar mention">x</p>'), '<p class="h-card mention">x</p>');
  assert.equal(
    s('<span class="p-name u-photo dt-published e-content invisible ellipsis hashtag quote-inline evil">x</span>'),
    '<span class="p-name u-photo dt-published e-content invisible ellipsis hashtag quote-inline">x</span>',
  );
  // The attribute stays with no survivors.
  assert.equal(s('<span class="evil other">x</span>'), '<span class="">x</span>');
  // Prefix means the start of the token: "mentions" and "xh-card" are not allowed.
  assert.equal(s('<p class="mentions xh-card">x</p>'), '<p class="">x</p>');
});

test("§1.2 translate is kept only as translate=no", () => {
  assert.equal(s('<span translate="no">a</span><span translate="yes">b</span>'), '<span translate="no">a</span><span>b</span>');
  assert.equal(s('<a href="https://x.example/" translate="YES">x</a>'), `<a href="https://x.example/" ${A}>x</a>`);
});

test("§1.2 links get rel and target forced, replacing what they had", () => {
  assert.equal(
    s('<a href="https://remote.example/@bob" class="u-url mention" rel="me noreferrer" target="_top">@<span>bob</span></a>'),
    `<a href="https://remote.example/@bob" class="u-url mention" ${A}>@<span>bob</span></a>`,
  );
  assert.equal(
    s('<a href="https://remote.example/tags/birds" class="mention hashtag" rel="tag">#<span>birds</span></a>'),
    `<a href="https://remote.example/tags/birds" class="mention hashtag" ${A}>#<span>birds</span></a>`,
  );
  assert.equal(s('<a target="_self" href="http://x.example/?a=1&amp;b=2">x</a>'), `<a href="http://x.example/?a=1&amp;b=2" ${A}>x</a>`);
});

test("§1.3 links with other schemes, relative links and links without href become their text", () => {
  assert.equal(s('<a href="javascript:alert(1)">click <b>me</b></a> after'), "click me after");
  assert.equal(s('<a href="JaVaScRiPt:alert(1)">x</a>'), "x");
  assert.equal(s('<a href=" java&#x09;script:alert(1)">y</a>'), "y");
  assert.equal(s('<a href="data:text/html;base64,PHNjcmlwdD4=">d</a>'), "d");
  assert.equal(s('<a href="vbscript:msgbox(1)">v</a>'), "v");
  assert.equal(s('<a href="mailto:me@x.example">m</a>'), "m");
  assert.equal(s('<a href="/tags/birds">#birds</a>'), "#birds");
  assert.equal(s('<a href="//evil.example/">p</a>'), "p");
  assert.equal(s("<a>plain</a>"), "plain");
  // Siblings after an unwrapped link are untouched.
  assert.equal(s('<a href="/x">a</a><a href="https://b.example/">b</a>'), `a<a href="https://b.example/" ${A}>b</a>`);
});

test("§1.3 every allowed scheme keeps its link", () => {
  for (const href of ["http://a.example/", "https://a.example/", "dat://a", "dweb://a", "ipfs://Qm", "ipns://a", "ssb://a", "gopher://a.example", "xmpp:a@b.example", "magnet:?xt=urn:btih:1", "gemini://a.example/"]) {
    assert.equal(s(`<a href="${href}">l</a>`), `<a href="${href}" ${A}>l</a>`, href);
  }
});

test("§1.3 h1-h6 become a paragraph of strong text", () => {
  assert.equal(s("<h1>Title</h1><p>body</p>"), "<p><strong>Title</strong></p><p>body</p>");
  assert.equal(s('<h3 lang="en" class="x">Sub</h3>'), '<p><strong lang="en">Sub</strong></p>');
  // A heading inside a paragraph closes it (HTML parsing rules); the stray </p> makes an empty one.
  assert.equal(s("<p>a<h2>b</h2>c</p>"), "<p>a</p><p><strong>b</strong></p>c<p></p>");
});

test("§1.3 <math>: TeX annotation, else text/plain annotation, else removed", () => {
  const mathml = (attrs: string, annotations: string) =>
    `<math${attrs}><semantics><mrow><msup><mi>x</mi><mn>2</mn></msup></mrow>${annotations}</semantics></math>`;
  assert.equal(s(`<p>see ${mathml("", '<annotation encoding="application/x-tex">x^2</annotation>')}!</p>`), "<p>see $x^2$!</p>");
  assert.equal(s(mathml(' display="block"', '<annotation encoding="application/x-tex">x^2 &lt; 3</annotation>')), "$$x^2 &lt; 3$$");
  assert.equal(
    s(mathml("", '<annotation encoding="text/plain">x squared</annotation><annotation encoding="application/x-tex">x^2</annotation>')),
    "$x^2$",
  );
  assert.equal(s(mathml("", '<annotation encoding="text/plain">x squared</annotation>')), "x squared");
  assert.equal(s(`a${mathml("", "")}b`), "ab");
  assert.equal(s("a<math><mi>x</mi></math>b"), "ab");
});

test("§1.3 elements removed with their content: script, style, iframe, svg, noscript and the rest", () => {
  assert.equal(s("<p>Hello <b>world</b><script>alert(1)</script></p>"), "<p>Hello <b>world</b></p>");
  assert.equal(s("<SCRIPT>alert(1)</SCRIPT>ok"), "ok");
  assert.equal(s("<style>p{color:red}</style>ok"), "ok");
  assert.equal(s('<iframe src="https://evil.example"><p>inner</p></iframe>ok'), "ok");
  assert.equal(s('<svg onload="alert(1)"><a href="https://x.example/">in svg</a><script>x</script></svg>ok'), "ok");
  assert.equal(s("<p>x<noscript><b>n</b></noscript>y</p>"), "<p>xy</p>");
  assert.equal(s("a<noembed>n</noembed><noframes>f</noframes><xmp><b>x</b></xmp>b"), "ab");
  assert.equal(s("<p>a<plaintext><b>x</b></p>"), "<p>a</p>");
});

test("§1.3 other elements are unwrapped; block ones leave spaces", () => {
  assert.equal(s("<div>a</div><div>b</div>x<hr>y"), " a  b x  y");
  assert.equal(s("<section><header>H</header><article>A</article><footer>F</footer></section>"), "  H  A  F  ");
  assert.equal(s("<p>x<sup>2</sup> <sub>i</sub> <font color=red>r</font></p>"), "<p>x2 i r</p>");
  assert.equal(s("<table><tr><td>a</td><td>b</td></tr></table>"), "ab");
  assert.equal(s('<p>an <img src="x.png" alt="alt text"> image</p>'), "<p>an  image</p>");
  assert.equal(s("<details><summary>S</summary>D</details>"), "SD");
});

test("§1.3 nested unwrapping keeps the allowed elements inside", () => {
  assert.equal(s("<div><p>a <span class=\"x\"><b>b</b></span></p><div><i>c</i></div></div>"), ' <p>a <span class=""><b>b</b></span></p> <i>c</i>  ');
  assert.equal(s("<custom-el><em>e</em></custom-el>"), "<em>e</em>");
});

test("§1.3 comments are removed; text is escaped", () => {
  assert.equal(s("<!-- hidden -->text<!-- <script>x</script> -->"), "text");
  assert.equal(s("<p>1 &lt; 2 &amp; 3 &gt; 0</p>"), "<p>1 &lt; 2 &amp; 3 &gt; 0</p>");
  assert.equal(s("<scr<script>ipt>alert(1)</script>"), "ipt&gt;alert(1)");
  assert.equal(s('<textarea><b>t</b></textarea>'), "&lt;b&gt;t&lt;/b&gt;");
});

test("names of roost's own markers cannot be smuggled in", () => {
  assert.equal(s("<roost-heading>x</roost-heading><roost-space>y</roost-space><roost-drop>z</roost-drop>"), "xyz");
  assert.equal(s('<p class="roost-empty-class">x</p>'), '<p class="">x</p>');
});

test("a Mastodon post comes through as it was", () => {
  const html =
    '<p><span class="h-card" translate="no"><a href="https://remote.example/@bob" class="u-url mention">@<span>bob</span></a></span> a heron! ' +
    '<a href="https://remote.example/tags/birds" class="mention hashtag" rel="tag">#<span>birds</span></a> :heron:</p>' +
    '<p><a href="https://birds.example/heron" target="_blank" rel="nofollow noopener" translate="no"><span class="invisible">https://</span><span class="">birds.example/heron</span><span class="invisible"></span></a></p>';
  assert.equal(
    s(html),
    '<p><span class="h-card" translate="no"><a href="https://remote.example/@bob" class="u-url mention" rel="nofollow noopener" target="_blank">@<span>bob</span></a></span> a heron! ' +
      '<a href="https://remote.example/tags/birds" class="mention hashtag" rel="nofollow noopener" target="_blank">#<span>birds</span></a> :heron:</p>' +
      '<p><a href="https://birds.example/heron" rel="nofollow noopener" translate="no" target="_blank"><span class="invisible">https://</span><span class="">birds.example/heron</span><span class="invisible"></span></a></p>',
  );
});

test("§1.4 plain text: newlines after <br> and </p>, removed elements dropped, entities decoded", () => {
  assert.equal(remoteHtmlToText("<p>a<br>b<br />c</p><p>d &amp; &lt;e&gt;</p>"), "a\nb\nc\nd & <e>");
  assert.equal(remoteHtmlToText("<p>x</p><script>alert(1)</script><style>p{}</style><p>y</p>"), "x\ny");
  assert.equal(remoteHtmlToText('<p><a href="https://x.example/">link</a> <math><mi>x</mi></math>end</p>'), "link end");
  assert.equal(remoteHtmlToText("<p>one</p><p>two</p>"), "one\ntwo");
  assert.equal(remoteHtmlToText("plain"), "plain");
});
