import { test } from "node:test";
import assert from "node:assert/strict";
import { startTestServer } from "../helpers/server.ts";
import {
  setClosedRegistrationsMessage,
  setExtendedDescription,
  setPrivacyPolicy,
  setTermsOfService,
} from "../../src/services/instance-pages.ts";
import { renderMarkdown } from "../../src/services/instance-markdown.ts";

const PUBLIC_5_MIN = "public, max-age=300, stale-while-revalidate=30, stale-if-error=86400";

test("extended description, privacy policy and terms of service come from the settings as HTML", async (t) => {
  const s = await startTestServer();
  t.after(() => s.close());
  const T = Date.UTC(2025, 5, 1, 10);
  s.app.now = () => T;

  const empty = await s.req(null, "GET", "/api/v1/instance/extended_description");
  assert.equal(empty.status, 200);
  assert.equal(empty.headers.get("cache-control"), PUBLIC_5_MIN);
  assert.deepEqual(empty.body, { updated_at: null, content: "" });
  setExtendedDescription(s.app, "# About\n\nWe talk about **birds**.\nMostly owls.");
  assert.deepEqual(await s.api(null, "GET", "/api/v1/instance/extended_description"), {
    updated_at: "2025-06-01T10:00:00.000Z",
    content: "<h1>About</h1>\n<p>We talk about <strong>birds</strong>.<br />Mostly owls.</p>",
  });

  // A default policy is always there (as Mastodon ships one); an admin's replaces it.
  const def = await s.api(null, "GET", "/api/v1/instance/privacy_policy");
  assert.equal(def.updated_at, "2025-01-01T00:00:00.000Z");
  assert.match(def.content, new RegExp(`^<h1>Privacy policy of ${s.app.config.domain.replace(/\./g, "\\.")}</h1>`));
  setPrivacyPolicy(s.app, "We keep nothing.");
  assert.deepEqual(await s.api(null, "GET", "/api/v1/instance/privacy_policy"), {
    updated_at: "2025-06-01T10:00:00.000Z",
    content: "<p>We keep nothing.</p>",
  });

  assert.equal((await s.req(null, "GET", "/api/v1/instance/terms_of_service")).status, 404);
  assert.equal((await s.api(null, "GET", "/api/v2/instance")).configuration.urls.terms_of_service, null);
  setTermsOfService(s.app, { text: "Be nice.", effectiveDate: "2025-07-01" });
  const tos = await s.req(null, "GET", "/api/v1/instance/terms_of_service");
  assert.equal(tos.headers.get("cache-control"), PUBLIC_5_MIN);
  // Published but not yet in effect.
  assert.deepEqual(tos.body, { effective_date: "2025-07-01", effective: false, content: "<p>Be nice.</p>", succeeded_by: null });
  s.app.now = () => Date.UTC(2025, 6, 1, 0, 0, 1);
  assert.equal((await s.api(null, "GET", "/api/v1/instance/terms_of_service")).effective, true);
  assert.equal((await s.api(null, "GET", "/api/v1/instance/terms_of_service/2025-07-01")).content, "<p>Be nice.</p>");
  assert.equal((await s.req(null, "GET", "/api/v1/instance/terms_of_service/2025-06-30")).status, 404);
  assert.equal((await s.req(null, "GET", "/api/v1/instance/terms_of_service/garbage")).status, 404);
  assert.equal(
    (await s.api(null, "GET", "/api/v2/instance")).configuration.urls.terms_of_service,
    `${s.app.baseUrl}/terms-of-service`,
  );
  assert.throws(() => setTermsOfService(s.app, { text: "x", effectiveDate: "July" }), /Effective date is invalid/);
});

test("closed registrations show the admin's message", async (t) => {
  const s = await startTestServer({ config: { registrations: "closed" } });
  t.after(() => s.close());
  setClosedRegistrationsMessage(s.app, "Invite only, see [our site](https://roost.example/join).");
  const i = await s.api(null, "GET", "/api/v2/instance");
  assert.equal(i.registrations.enabled, false);
  assert.equal(i.registrations.message, '<p>Invite only, see <a href="https://roost.example/join">our site</a>.</p>');
});

test("languages and translation languages", async (t) => {
  const s = await startTestServer();
  t.after(() => s.close());
  const res = await s.req(null, "GET", "/api/v1/instance/languages");
  assert.equal(res.headers.get("cache-control"), PUBLIC_5_MIN);
  const langs = res.body as { code: string; name: string }[];
  assert.ok(langs.length > 180);
  assert.deepEqual(langs.find((l) => l.code === "de"), { code: "de", name: "German" });
  assert.deepEqual(langs.find((l) => l.code === "en"), { code: "en", name: "English" });
  assert.ok(langs.every((l) => typeof l.name === "string" && l.name !== ""));
  const tr = await s.req(null, "GET", "/api/v1/instance/translation_languages");
  assert.equal(tr.headers.get("cache-control"), PUBLIC_5_MIN);
  assert.deepEqual(tr.body, {});
});

test("instance Markdown escapes HTML and only links http(s) URLs", () => {
  assert.equal(renderMarkdown(""), "");
  assert.equal(renderMarkdown("<script>alert(1)</script>"), "<p>&lt;script&gt;alert(1)&lt;/script&gt;</p>");
  assert.equal(renderMarkdown("[x](javascript:alert(1))"), "<p>[x](javascript:alert(1))</p>");
  assert.equal(renderMarkdown("- one\n- *two*\n\n1. a\n2. `b`"), "<ul><li>one</li><li><em>two</em></li></ul>\n<ol><li>a</li><li><code>b</code></li></ol>");
});

test("the pages behind configuration.urls exist: /about, /privacy-policy, /terms-of-service", async (t) => {
  const s = await startTestServer();
  t.after(() => s.close());
  const v2 = await s.api(null, "GET", "/api/v2/instance");
  const pathOf = (u: string) => new URL(u).pathname;
  setExtendedDescription(s.app, "We talk about **birds**.");

  const about = await s.req(null, "GET", pathOf(v2.configuration.urls.about), undefined, { accept: "text/html" });
  assert.equal(about.status, 200);
  assert.match(about.headers.get("content-type") ?? "", /^text\/html/);
  assert.match(about.text, /<h1>Roost Test<\/h1>/);
  assert.match(about.text, /<strong>birds<\/strong>/);
  assert.match(about.text, /Anyone can sign up\./);

  const privacy = await s.req(null, "GET", pathOf(v2.configuration.urls.privacy_policy), undefined, { accept: "text/html" });
  assert.equal(privacy.status, 200);
  assert.match(privacy.text, /<h1>Privacy policy<\/h1>/);

  assert.equal(v2.configuration.urls.terms_of_service, null);
  assert.equal((await s.req(null, "GET", "/terms-of-service", undefined, { accept: "text/html" })).status, 404);
  setTermsOfService(s.app, { text: "Be kind.", effectiveDate: "2025-01-01" });
  const v2b = await s.api(null, "GET", "/api/v2/instance");
  const tos = await s.req(null, "GET", pathOf(v2b.configuration.urls.terms_of_service), undefined, { accept: "text/html" });
  assert.equal(tos.status, 200);
  assert.match(tos.text, /<p>Be kind\.<\/p>/);

  const more = await s.req(null, "GET", "/about/more?instance_actor=true");
  assert.equal(more.status, 302);
  assert.equal(more.headers.get("location"), "/about");
});
