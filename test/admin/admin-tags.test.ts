// Admin hashtags (endpoints-admin.md §6): manage_taxonomies, the Admin::Tag entity, filters,
// PUT with its audit entry, and what the flags do: usable=false refuses local posts with the
// tag (Mastodon's DisallowedHashtagsValidator) and links it to no new post; listable=false
// leaves it out of search and featured-tag suggestions; trendable=false keeps it from trending.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { refreshTrends } from "../../src/trends/refresh.ts";
import { findTagByName, setStatusTags } from "../../src/storage/tags.ts";
import { startTestServer, type TestServer, type TestUser } from "../helpers/server.ts";
import { lastAudit, makeStaff, type Staff } from "./admin-helpers.ts";

let s: TestServer;
let staff: Staff;
let poster: TestUser;
before(async () => {
  s = await startTestServer();
  staff = await makeStaff(s);
  poster = await s.user("poster");
});
after(() => s.close());

const PATH = "/api/v1/admin/tags";
const tagId = (name: string) => findTagByName(s.app.db, name)!.id;
const post = (status: string) => s.req(poster, "POST", "/api/v1/statuses", { status });

test("admin tags: manage_taxonomies (moderators too); list with filters, show, 404s", async () => {
  await s.api(poster, "POST", "/api/v1/statuses", { status: "#Birding and #birdsong" });
  assert.equal((await s.req(staff.plain, "GET", PATH)).status, 403);
  assert.equal((await s.req(staff.plain, "PUT", `${PATH}/${tagId("birding")}`, { usable: false })).status, 403);
  const list = await s.api(staff.mod, "GET", PATH);
  assert.deepEqual(list.map((t: any) => t.name), ["birdsong", "Birding"]);
  assert.deepEqual(
    { ...list[1], history: list[1].history.length },
    { id: tagId("birding"), name: "Birding", url: `${s.url}/tags/birding`, history: 7, following: false, featuring: false, trendable: true, usable: true, listable: true, requires_review: false },
  );
  assert.deepEqual((await s.api(staff.admin, "GET", `${PATH}?name=%23BIRDI`)).map((t: any) => t.name), ["Birding"]);
  assert.deepEqual((await s.api(staff.admin, "GET", `${PATH}?status=reviewed`)).map((t: any) => t.name), []);
  assert.equal((await s.req(staff.admin, "GET", `${PATH}?status=bogus`)).status, 400);
  assert.equal((await s.api(staff.owner, "GET", `${PATH}/${tagId("birding")}`)).name, "Birding");
  for (const id of ["999", "abc"]) {
    assert.equal((await s.req(staff.admin, "GET", `${PATH}/${id}`)).status, 404);
    assert.equal((await s.req(staff.admin, "PUT", `${PATH}/${id}`, { usable: false })).status, 404);
  }
});

test("PUT: display name only in another letter case; the change is reviewed and audited", async () => {
  await post("#cats are nice");
  const id = tagId("cats");
  const bad = await s.req(staff.admin, "PUT", `${PATH}/${id}`, { display_name: "Dogs" });
  assert.deepEqual([bad.status, bad.body.error], [422, "Validation failed: Display name does not match the previous name"]);
  const t = await s.api(staff.admin, "PUT", `${PATH}/${id}`, { display_name: "CATS", listable: false, trendable: "false" });
  assert.deepEqual([t.name, t.usable, t.listable, t.trendable, t.requires_review], ["CATS", true, false, false, false]);
  const entry = lastAudit(s, "update");
  assert.deepEqual([entry.targetType, entry.targetId, entry.humanIdentifier], ["Tag", id, "cats"]);
  assert.deepEqual(entry.changes, { display_name: ["cats", "CATS"], listable: [true, false], trendable: [true, false] });
  assert.deepEqual((await s.api(staff.admin, "GET", `${PATH}?status=reviewed`)).map((x: any) => x.id), [id]);
});

test("usable=false: local posts with the tag are refused (edits too); a remote-style link is not recorded", async () => {
  const ok = await s.api(poster, "POST", "/api/v1/statuses", { status: "first #spamtag post" });
  const id = tagId("spamtag");
  await s.api(staff.admin, "PUT", `${PATH}/${id}`, { usable: false });
  const r = await post("again #SpamTag");
  assert.deepEqual([r.status, r.body.error], [422, "Validation failed: Text contained a disallowed hashtag: spamtag"]);
  const fresh = (await post("#othertag")).body;
  const two = await post("#spamtag #othertag2 #ok");
  assert.equal(two.status, 422);
  const edit = await s.req(poster, "PUT", `/api/v1/statuses/${ok.id}`, { status: "edited #spamtag" });
  assert.equal(edit.status, 422, "an edit keeping the tag is refused too");
  // Any path that links tags (remote posts and their edits) leaves the unusable one out; the
  // posts that had it keep it, as in Mastodon.
  setStatusTags(s.app.db, fresh.id, [id, tagId("othertag")]);
  assert.deepEqual((await s.api(poster, "GET", `/api/v1/statuses/${fresh.id}`)).tags.map((t: any) => t.name), ["othertag"]);
  assert.deepEqual((await s.api(poster, "GET", `/api/v1/statuses/${ok.id}`)).tags.map((t: any) => t.name), ["spamtag"]);
  await s.api(staff.admin, "PUT", `${PATH}/${id}`, { usable: true });
  assert.equal((await post("back #spamtag")).status, 200);
});

test("listable=false: out of search and featured-tag suggestions; trendable=false: never trends", async () => {
  for (let i = 0; i < 6; i++) {
    const u = await s.user(`fan${i}`);
    await s.api(u, "PATCH", "/api/v1/accounts/update_credentials", { discoverable: true });
    await s.api(u, "POST", "/api/v1/statuses", { status: `#hiddentopic and #trendytopic ${i}` });
  }
  await post("#hiddentopic from me");
  const search = async () => (await s.api(poster, "GET", "/api/v2/search?q=%23hiddentopic&type=hashtags")).hashtags.map((t: any) => t.name);
  const suggestions = async () => (await s.api(poster, "GET", "/api/v1/featured_tags/suggestions")).map((t: any) => t.name);
  assert.deepEqual(await search(), ["hiddentopic"]);
  assert.ok((await suggestions()).includes("hiddentopic"));
  await s.api(staff.admin, "PUT", `${PATH}/${tagId("hiddentopic")}`, { listable: false });
  assert.deepEqual(await search(), []);
  assert.ok(!(await suggestions()).includes("hiddentopic"));

  refreshTrends(s.app);
  const trending = async () => (await s.api(poster, "GET", "/api/v1/trends/tags")).map((t: any) => t.name).sort();
  assert.deepEqual(await trending(), ["hiddentopic", "trendytopic"], "unlisted tags may still trend, as in Mastodon");
  const pending = await s.api(staff.admin, "GET", `${PATH}?status=pending_review`);
  assert.ok(pending.some((t: any) => t.name === "trendytopic" && t.requires_review === true));
  await s.api(staff.admin, "PUT", `${PATH}/${tagId("trendytopic")}`, { trendable: false });
  refreshTrends(s.app);
  assert.deepEqual(await trending(), ["hiddentopic"]);
});
