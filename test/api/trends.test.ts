// Trends from our own data: hashtags, posts and links taken up by at least five accounts in
// an hour or two, against each item's own baseline of the day before, decaying afterwards;
// the public endpoints, the viewer's filters, and the moderators' review (trendsRequireReview).
import { test } from "node:test";
import assert from "node:assert/strict";
import { actorForAccount } from "../../src/admin/actor.ts";
import { readAuditLog } from "../../src/admin/audit.ts";
import { refreshTrends } from "../../src/trends/refresh.ts";
import { startTestServer, type TestServer, type TestUser } from "../helpers/server.ts";
import { startTrendingLink } from "../helpers/trend-links.ts";

const HOUR = 3_600_000;
const ids = (list: { id: string }[]) => list.map((x) => x.id);

/** A clock the test moves, starting at the 10th minute of the current hour. */
function clock(s: TestServer) {
  let now = Date.now() - (Date.now() % HOUR) + 10 * 60_000;
  s.app.now = () => now;
  return { advance: (ms: number) => (now += ms), now: () => now };
}

async function people(s: TestServer, n: number, prefix: string): Promise<TestUser[]> {
  const out: TestUser[] = [];
  for (let i = 0; i < n; i++) {
    const u = await s.user(`${prefix}${i}`);
    await s.api(u, "PATCH", "/api/v1/accounts/update_credentials", { discoverable: true });
    out.push(u);
  }
  return out;
}

test("hashtags, posts and links trend when five accounts take them up, then fade", async (t) => {
  const s = await startTestServer();
  t.after(() => s.close());
  const time = clock(s);
  const crowd = await people(s, 6, "fan");
  const [author] = await people(s, 1, "author");
  const viewer = await s.user("viewer");

  const hit = await s.api(author, "POST", "/api/v1/statuses", { status: "A post everyone likes" });
  const cw = await s.api(author, "POST", "/api/v1/statuses", { status: "hidden", spoiler_text: "cw" });
  for (const [i, u] of crowd.entries()) {
    await s.api(u, "POST", "/api/v1/statuses", { status: `Learning #RustLang ${i}, see https://example.com/rust-book#ch${i}` });
    if (i < 4) await s.api(u, "POST", "/api/v1/statuses", { status: `#fewfolk ${i}` });
    await s.api(u, "POST", `/api/v1/statuses/${hit.id}/favourite`);
    await s.api(u, "POST", `/api/v1/statuses/${cw.id}/favourite`);
  }
  // Only public posts count: the same tag in a private post adds nobody.
  await s.api(viewer, "POST", "/api/v1/statuses", { status: "#fewfolk quietly", visibility: "private" });
  assert.deepEqual(refreshTrends(s.app), { tag: 1, status: 2, link: 1 });

  const tags = await s.req(null, "GET", "/api/v1/trends/tags");
  assert.equal(tags.status, 200);
  assert.deepEqual(tags.body.map((x: { name: string }) => x.name), ["RustLang"]);
  assert.deepEqual(tags.body[0].history[0].accounts, "6");
  const alias = await s.req(null, "GET", "/api/v1/trends");
  assert.deepEqual(alias.body, tags.body);
  assert.equal(alias.headers.get("deprecation"), "@1648598400");

  // Posts: the favourited one; the one behind a content warning never trends (Mastodon's rule).
  const posts = await s.api(viewer, "GET", "/api/v1/trends/statuses");
  assert.deepEqual(posts.map((x: { id: string }) => x.id), [hit.id]);
  await s.api(viewer, "POST", `/api/v1/accounts/${author.id}/block`);
  assert.deepEqual(await s.api(viewer, "GET", "/api/v1/trends/statuses"), []);
  assert.equal((await s.req(null, "GET", "/api/v1/trends/statuses")).body.length, 1);

  // Links: one per URL without its fragment, counted once per account.
  const links = await s.req(null, "GET", "/api/v1/trends/links");
  assert.equal(links.body.length, 1);
  assert.equal(links.body[0].url, "https://example.com/rust-book");
  assert.equal(links.body[0].provider_name, "example.com");
  assert.equal(links.body[0].type, "link");
  assert.deepEqual(links.body[0].history[0], { day: links.body[0].history[0].day, accounts: "6", uses: "6" });
  assert.equal(links.body[0].history.length, 7);

  // Offset paging with Link headers; bad offsets are refused.
  const paged = await s.req(null, "GET", "/api/v1/trends/tags?limit=1");
  assert.match(paged.headers.get("link") ?? "", /offset=1>; rel="next"/);
  assert.deepEqual((await s.req(null, "GET", "/api/v1/trends/tags?offset=1")).body, []);
  assert.equal((await s.req(null, "GET", "/api/v1/trends/tags?offset=-1")).status, 400);

  // Ten hours on, without new uses, the hashtag and the posts have faded (half-life two hours);
  // the link (four hours) is gone after twenty.
  time.advance(10 * HOUR);
  assert.deepEqual(refreshTrends(s.app), { tag: 0, status: 0, link: 1 });
  assert.deepEqual((await s.req(null, "GET", "/api/v1/trends/tags")).body, []);
  time.advance(10 * HOUR);
  refreshTrends(s.app);
  assert.deepEqual((await s.req(null, "GET", "/api/v1/trends/links")).body, []);
});

test("an item measured against its own baseline: a tag used every hour does not trend", async (t) => {
  const s = await startTestServer();
  t.after(() => s.close());
  const time = clock(s);
  const crowd = await people(s, 6, "regular");
  // Six accounts use #daily in each of the twelve hours before.
  time.advance(-13 * HOUR);
  for (let h = 0; h < 12; h++) {
    for (const u of crowd) await s.api(u, "POST", "/api/v1/statuses", { status: `#daily ${h}` });
    time.advance(HOUR);
  }
  time.advance(HOUR);
  for (const u of crowd) await s.api(u, "POST", "/api/v1/statuses", { status: "#daily and #fresh" });
  refreshTrends(s.app);
  // #daily: 6 now against an expected 6 (72 account-hours over 24 hours, per two hours): no.
  assert.deepEqual((await s.req(null, "GET", "/api/v1/trends/tags")).body.map((x: { name: string }) => x.name), ["fresh"]);
});

test("with trendsRequireReview only what a moderator approved trends; the admin review API", async (t) => {
  const s = await startTestServer({ config: { trendsRequireReview: true } });
  t.after(() => s.close());
  clock(s);
  const crowd = await people(s, 5, "fan");
  for (const u of crowd) await s.api(u, "POST", "/api/v1/statuses", { status: "#Review me https://news.example/story" });
  refreshTrends(s.app);
  assert.deepEqual((await s.req(null, "GET", "/api/v1/trends/tags")).body, []);
  assert.deepEqual((await s.req(null, "GET", "/api/v1/trends/links")).body, []);

  const mod = await s.user("mod", { role: "moderator", scopes: ["read", "admin:read", "admin:write"] });
  const plain = await s.user("plain", { scopes: ["read", "admin:read", "admin:write"] });
  const narrow = await s.user("narrow", { role: "admin", scopes: ["read"] });
  // Mastodon's Admin::Trends controllers: a token with the scope; the list is the public one for
  // non-staff; reviews are staff only.
  assert.equal((await s.req(null, "GET", "/api/v1/admin/trends/tags")).status, 401);
  assert.deepEqual((await s.req(narrow, "GET", "/api/v1/admin/trends/tags")).body, { error: "This action is outside the authorized scopes" });
  assert.deepEqual(await s.api(plain, "GET", "/api/v1/admin/trends/tags"), []);

  const pending = await s.api(mod, "GET", "/api/v1/admin/trends/tags");
  assert.equal(pending.length, 1);
  assert.equal(pending[0].name, "Review");
  assert.equal(pending[0].requires_review, true);
  assert.equal(pending[0].trendable, false);
  const refused = await s.req(plain, "POST", `/api/v1/admin/trends/tags/${pending[0].id}/approve`);
  assert.deepEqual([refused.status, refused.body], [403, { error: "This action is not allowed" }]);
  assert.equal((await s.req(plain, "GET", "/api/v1/admin/trends/links/publishers")).status, 403);
  const approved = await s.api(mod, "POST", `/api/v1/admin/trends/tags/${pending[0].id}/approve`);
  assert.equal(approved.trendable, true);
  assert.equal(approved.requires_review, false);
  assert.deepEqual((await s.req(null, "GET", "/api/v1/trends/tags")).body.map((x: { name: string }) => x.name), ["Review"]);
  await s.api(mod, "POST", `/api/v1/admin/trends/tags/${pending[0].id}/reject`);
  assert.deepEqual((await s.req(null, "GET", "/api/v1/trends/tags")).body, []);
  assert.equal((await s.req(mod, "POST", "/api/v1/admin/trends/tags/999999/approve")).status, 404);

  // Links: approving the publisher lets its links trend; rejecting one link overrides it.
  const [link] = await s.api(mod, "GET", "/api/v1/admin/trends/links");
  assert.equal(typeof link.id, "number");
  assert.equal(link.url, "https://news.example/story");
  const [publisher] = await s.api(mod, "GET", "/api/v1/admin/trends/links/publishers");
  assert.deepEqual({ ...publisher, id: 0 }, { id: 0, domain: "news.example", trendable: false, reviewed_at: null, requested_review_at: null, requires_review: true });
  const ok = await s.api(mod, "POST", `/api/v1/admin/trends/links/publishers/${publisher.id}/approve`);
  assert.equal(ok.trendable, true);
  assert.match(ok.reviewed_at, /^\d{4}-/);
  assert.equal((await s.req(null, "GET", "/api/v1/trends/links")).body.length, 1);
  await s.api(mod, "POST", `/api/v1/admin/trends/links/${link.id}/reject`);
  assert.deepEqual((await s.req(null, "GET", "/api/v1/trends/links")).body, []);

  // Posts need at least five favourites or boosts: none here.
  assert.deepEqual(await s.api(mod, "GET", "/api/v1/admin/trends/statuses"), []);
  const post = await s.api(crowd[0], "POST", "/api/v1/statuses", { status: "favourite me" });
  for (const u of crowd) await s.api(u, "POST", `/api/v1/statuses/${post.id}/favourite`);
  refreshTrends(s.app);
  assert.equal((await s.api(mod, "POST", `/api/v1/admin/trends/statuses/${post.id}/approve`)).requires_review, false);
  assert.deepEqual(ids(await s.api(null, "GET", "/api/v1/trends/statuses")), [post.id]);
  // Approving what is approved already changes nothing: logged, without changes.
  await s.api(mod, "POST", `/api/v1/admin/trends/statuses/${post.id}/approve`);

  // Every review is in the audit log: who, what, and the change of `trendable`.
  const actor = actorForAccount(s.app, mod.id, "cli")!;
  const log = readAuditLog(s.app, actor, { limit: 20 }).reverse();
  assert.deepEqual(
    log.map((e) => [e.actorName, e.source, e.action, e.targetType, e.targetId, e.humanIdentifier, e.changes]),
    [
      ["mod", "api", "approve", "Tag", pending[0].id, "review", { trendable: [null, true] }],
      ["mod", "api", "reject", "Tag", pending[0].id, "review", { trendable: [true, false] }],
      ["mod", "api", "approve", "PreviewCardProvider", String(publisher.id), "news.example", { trendable: [null, true] }],
      ["mod", "api", "reject", "PreviewCard", String(link.id), "https://news.example/story", { trendable: [null, false] }],
      ["mod", "api", "approve", "Status", post.id, "fan0", { trendable: [null, true] }],
      ["mod", "api", "approve", "Status", post.id, "fan0", {}],
    ],
  );
  // A refused or unknown review leaves no entry.
  assert.equal((await s.req(plain, "POST", `/api/v1/admin/trends/statuses/${post.id}/reject`)).status, 403);
  assert.equal((await s.req(mod, "POST", "/api/v1/admin/trends/links/999999/reject")).status, 404);
  assert.equal(readAuditLog(s.app, actor, { limit: 20 }).length, 6);

  // usable and listable are the tag's own flags (NULL: yes), not fixed values.
  const flags = async () => (await s.api(mod, "GET", "/api/v1/admin/trends/tags")).map((x: any) => [x.name, x.usable, x.listable]);
  assert.deepEqual(await flags(), [["Review", true, true]]);
  await s.api(mod, "PUT", `/api/v1/admin/tags/${pending[0].id}`, { listable: false });
  assert.deepEqual(await flags(), [["Review", true, false]]);
  await s.api(mod, "PUT", `/api/v1/admin/tags/${pending[0].id}`, { usable: false, listable: true });
  assert.deepEqual(await flags(), [["Review", false, true]]);
  const reviewed = await s.api(mod, "POST", `/api/v1/admin/trends/tags/${pending[0].id}/approve`);
  assert.deepEqual([reviewed.trendable, reviewed.usable, reviewed.listable, reviewed.requires_review], [true, false, true, false]);
});

test("a trending link is shown with its preview card: title, description, image, author, provider, size, history", async (t) => {
  const s = await startTestServer();
  t.after(() => s.close());
  const { site, url } = await startTrendingLink(s);
  t.after(() => site.close());
  const [link] = (await s.req(null, "GET", "/api/v1/trends/links")).body;
  assert.match(link.image, new RegExp(`^${s.app.baseUrl}/system/cards/[^/]+\\.jpg$`));
  assert.match(link.blurhash, /^[0-9A-Za-z#$%*+,\-.:;=?@[\]^_{|}~]{20,}$/);
  const today = s.app.now() - (s.app.now() % 86_400_000);
  assert.deepEqual(
    { ...link, image: null, blurhash: null, history: link.history.slice(0, 2) },
    {
      url,
      title: "Herons & egrets",
      description: "All about wading birds",
      language: null,
      type: "link",
      author_name: "Ada Heron",
      author_url: "",
      provider_name: "Bird News",
      provider_url: "",
      html: "",
      width: 587,
      height: 391,
      image: null,
      image_description: "",
      embed_url: "",
      blurhash: null,
      published_at: null,
      authors: [{ name: "Ada Heron", url: "", account: null }],
      history: [
        { day: String(today / 1000), accounts: "5", uses: "5" },
        { day: String((today - 86_400_000) / 1000), accounts: "0", uses: "0" },
      ],
    },
  );
  assert.equal(link.history.length, 7);
  // The admin's list shows the same card, with the link's id and review state.
  const admin = await s.user("boss", { role: "admin", scopes: ["admin:read"] });
  const [reviewed] = await s.api(admin, "GET", "/api/v1/admin/trends/links");
  assert.equal(reviewed.title, "Herons & egrets");
  assert.equal(typeof reviewed.id, "number");
  assert.equal(reviewed.requires_review, true);
});
