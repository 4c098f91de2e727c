// Filters applied: every Status carries `filtered` for its viewer; `hide` drops matches on the
// server in the contexts it names; `warn` and `blur` only annotate; expired filters never apply.
// Scenarios over HTTP with several users; time moves with the app clock.
import { test } from "node:test";
import assert from "node:assert/strict";
import { toApiStatuses } from "../../src/serializers/status.ts";
import { filterRulesOf } from "../../src/storage/filter-rules.ts";
import { findStatusesByIds } from "../../src/storage/statuses.ts";
import { startTestServer, type TestServer, type TestUser } from "../helpers/server.ts";
import { followRemote, noteDoc, startWorld, stored } from "../federation/remote-status-helpers.ts";

const ids = (list: { id: string }[]) => list.map((x) => x.id);

async function world(t: { after: (fn: () => Promise<void>) => void }) {
  const s = await startTestServer();
  t.after(() => s.close());
  const alice = await s.user("alice");
  const bob = await s.user("bob");
  await s.api(bob, "POST", `/api/v1/accounts/${alice.id}/follow`);
  return { s, alice, bob };
}

async function filter(s: TestServer, who: TestUser, body: Record<string, unknown>) {
  return s.api(who, "POST", "/api/v2/filters", { title: "f", context: ["home"], ...body });
}

async function post(s: TestServer, who: TestUser, status: string, extra: Record<string, unknown> = {}) {
  return s.api(who, "POST", "/api/v1/statuses", { status, ...extra });
}

async function home(s: TestServer, who: TestUser) {
  await s.drainJobs();
  return s.api<any[]>(who, "GET", "/api/v1/timelines/home");
}

test("warn: the status carries `filtered` with the filter and the matched text, for its viewer only", async (t) => {
  const { s, alice, bob } = await world(t);
  const f = await filter(s, bob, { title: "Spoilers", context: ["home", "public"], keywords_attributes: [{ keyword: "spoiler", whole_word: false }] });
  const hit = await post(s, alice, "Big SPOILERS ahead");
  const miss = await post(s, alice, "just tea");
  const page = await home(s, bob);
  assert.deepEqual(ids(page), [miss.id, hit.id]);
  assert.deepEqual(page[1].filtered, [
    {
      filter: { id: f.id, title: "Spoilers", context: ["home", "public"], expires_at: null, filter_action: "warn" },
      keyword_matches: ["SPOILER"],
      status_matches: null,
    },
  ]);
  assert.deepEqual(page[0].filtered, []);
  // Everywhere a Status is rendered for bob: the status itself, the public timeline.
  assert.deepEqual((await s.api(bob, "GET", `/api/v1/statuses/${hit.id}`)).filtered, page[1].filtered);
  const pub = await s.api<any[]>(bob, "GET", "/api/v1/timelines/public");
  assert.deepEqual(pub.find((x) => x.id === hit.id).filtered, page[1].filtered);
  // alice has no filters; anonymous callers get no `filtered` at all.
  assert.deepEqual((await s.api(alice, "GET", `/api/v1/statuses/${hit.id}`)).filtered, []);
  assert.equal("filtered" in (await s.api(null, "GET", `/api/v1/statuses/${hit.id}`)), false);
});

test("the timeline text and the object serializer agree on `filtered`", async (t) => {
  const { s, alice, bob } = await world(t);
  await filter(s, bob, { keywords_attributes: [{ keyword: "tea", whole_word: true }] });
  await filter(s, bob, { filter_action: "blur", keywords_attributes: [{ keyword: "cake" }] });
  await post(s, alice, "tea and cake");
  await post(s, alice, "teapot");
  const carol = await s.user("carol");
  await s.api(bob, "POST", `/api/v1/accounts/${carol.id}/follow`);
  const original = await post(s, alice, "more cake");
  await s.api(carol, "POST", `/api/v1/statuses/${original.id}/reblog`);
  const page = await home(s, bob);
  const rows = findStatusesByIds(s.app.db, ids(page));
  const objects = JSON.parse(JSON.stringify(toApiStatuses(s.app, ids(page).map((id) => rows.get(id)!), bob.id)));
  assert.deepEqual(page, objects);
  assert.deepEqual(page.map((x) => x.filtered.length), [1, 1, 0, 2]);
  // A boost carries its original's matches, on the boost and on the post inside it.
  assert.deepEqual(page[0].filtered, page[0].reblog.filtered);
  assert.deepEqual(page[0].filtered[0].keyword_matches, ["cake"]);
});

test("hide drops matches from home, lists and notifications; other contexts only if named", async (t) => {
  const { s, alice, bob } = await world(t);
  const list = await s.api(bob, "POST", "/api/v1/lists", { title: "friends" });
  await s.api(bob, "POST", `/api/v1/lists/${list.id}/accounts`, { account_ids: [alice.id] });
  await filter(s, bob, { title: "Hide", context: ["home", "notifications"], filter_action: "hide", keywords_attributes: [{ keyword: "crypto" }] });
  const hidden = await post(s, alice, "@bob buy Crypto now");
  const shown = await post(s, alice, "@bob lunch?");
  const page = await home(s, bob);
  assert.deepEqual(ids(page), [shown.id]);
  assert.deepEqual(ids(await s.api(bob, "GET", `/api/v1/timelines/list/${list.id}`)), [shown.id]);
  const notes = await s.api<any[]>(bob, "GET", "/api/v1/notifications");
  assert.deepEqual(notes.map((n) => [n.type, n.status.id]), [["mention", shown.id]]);
  // Not in public, thread or account: there it is only annotated.
  const pub = await s.api<any[]>(bob, "GET", "/api/v1/timelines/public");
  assert.deepEqual(ids(pub), [shown.id, hidden.id]);
  assert.equal(pub[1].filtered[0].filter.filter_action, "hide");
  assert.deepEqual(ids(await s.api(bob, "GET", `/api/v1/accounts/${alice.id}/statuses`)), [shown.id, hidden.id]);
  // Fetched on its own it is still there, with `filtered` telling the client why.
  assert.equal((await s.api(bob, "GET", `/api/v1/statuses/${hidden.id}`)).filtered[0].keyword_matches[0], "Crypto");
  // alice's own view is untouched.
  assert.deepEqual(ids(await home(s, alice)), [shown.id, hidden.id]);
});

test("hide in public, account and thread contexts; the viewer's own posts are never dropped", async (t) => {
  const { s, alice, bob } = await world(t);
  await filter(s, bob, { context: ["public", "account", "thread"], filter_action: "hide", keywords_attributes: [{ keyword: "politics", whole_word: true }] });
  const root = await post(s, alice, "thread start");
  const reply = await post(s, alice, "politics again", { in_reply_to_id: root.id });
  const own = await post(s, bob, "my politics take", { in_reply_to_id: reply.id });
  const tail = await post(s, alice, "anyway", { in_reply_to_id: own.id });
  const tagged = await post(s, alice, "#news politics");
  const tagOther = await post(s, alice, "#news weather");
  const ownTop = await post(s, bob, "Politics, says me");

  // (Replies to others are never in the public timeline.)
  assert.deepEqual(ids(await s.api(bob, "GET", "/api/v1/timelines/public")), [ownTop.id, tagOther.id, root.id]);
  assert.deepEqual(ids(await s.api(bob, "GET", "/api/v1/timelines/tag/news")), [tagOther.id]);
  assert.deepEqual(ids(await s.api(bob, "GET", `/api/v1/accounts/${alice.id}/statuses`)), [tagOther.id, tail.id, root.id]);
  assert.deepEqual(ids(await s.api(bob, "GET", `/api/v1/accounts/${bob.id}/statuses`)), [ownTop.id, own.id]);
  const ctx = await s.api(bob, "GET", `/api/v1/statuses/${tail.id}/context`);
  assert.deepEqual(ids(ctx.ancestors), [root.id, own.id]);
  const down = await s.api(bob, "GET", `/api/v1/statuses/${root.id}/context`);
  assert.deepEqual(ids(down.descendants), [own.id, tail.id]);
  // Home is not among the contexts: there the posts stay, annotated.
  const page = await home(s, bob);
  assert.ok(ids(page).includes(reply.id) && ids(page).includes(tagged.id));
  // The own post matches too: annotated, never dropped.
  assert.equal(page.find((x) => x.id === own.id).filtered.length, 1);
  // Someone else's view of the same lists is untouched.
  assert.equal((await s.api(alice, "GET", "/api/v1/timelines/tag/news")).length, 2);
});

test("blur only annotates, in every context it names", async (t) => {
  const { s, alice, bob } = await world(t);
  await filter(s, bob, { context: ["home", "notifications"], filter_action: "blur", keywords_attributes: [{ keyword: "gore" }] });
  const p = await post(s, alice, "@bob gore warning");
  const page = await home(s, bob);
  assert.deepEqual(ids(page), [p.id]);
  assert.equal(page[0].filtered[0].filter.filter_action, "blur");
  const [n] = await s.api<any[]>(bob, "GET", "/api/v1/notifications");
  assert.equal(n.status.id, p.id);
  assert.equal(n.status.filtered[0].filter.filter_action, "blur");
});

test("whole_word and substring keywords over the content warning, the text and its words", async (t) => {
  const { s, alice, bob } = await world(t);
  await filter(s, bob, { title: "whole", keywords_attributes: [{ keyword: "cat", whole_word: true }] });
  await filter(s, bob, { title: "part", keywords_attributes: [{ keyword: "cat", whole_word: false }] });
  await filter(s, bob, { title: "cw", keywords_attributes: [{ keyword: "nsfw", whole_word: true }] });
  const a = await post(s, alice, "my Cat!");
  const b = await post(s, alice, "concatenate strings");
  const c = await post(s, alice, "look", { spoiler_text: "NSFW content" });
  const d = await post(s, alice, "cats and dogs");
  const page = await home(s, bob);
  const titles = (id: string) => page.find((x) => x.id === id).filtered.map((r: any) => [r.filter.title, r.keyword_matches[0]]);
  assert.deepEqual(titles(a.id), [["whole", "Cat"], ["part", "Cat"]]);
  assert.deepEqual(titles(b.id), [["part", "cat"]]);
  assert.deepEqual(titles(c.id), [["cw", "NSFW"]]);
  assert.deepEqual(titles(d.id), [["part", "cat"]]);
});

test("a remote post is matched on its HTML's text and its media descriptions", async (t) => {
  const w = await startWorld(t);
  const bob = await w.s.user("bob");
  followRemote(w, bob);
  await filter(w.s, bob, { title: "html", keywords_attributes: [{ keyword: "fish & chips", whole_word: true }] });
  await filter(w.s, bob, { title: "line", keywords_attributes: [{ keyword: "world hello" }] });
  await filter(w.s, bob, { title: "alt", keywords_attributes: [{ keyword: "lighthouse", whole_word: true }] });
  const text = await stored(w, noteDoc(w.rita, { content: "<p>Hello<br>world &amp; <a href=\"https://x.example/\">fish &amp; chips</a></p>" }));
  const media = await stored(
    w,
    noteDoc(w.rita, {
      content: "<p>a photo</p>",
      attachment: [{ type: "Document", mediaType: "image/png", url: "https://remote.example/a.png", name: "A Lighthouse at dusk" }],
    }),
  );
  const split = await stored(w, noteDoc(w.rita, { content: "<p>world</p><p>hello</p>" }));
  await w.s.drainJobs();
  const page = await w.s.api<any[]>(bob, "GET", "/api/v1/timelines/home");
  const titles = (id: string) => page.find((x) => x.id === id).filtered.map((r: any) => [r.filter.title, r.keyword_matches[0]]);
  assert.deepEqual(titles(text.id), [["html", "fish & chips"]]);
  assert.deepEqual(titles(media.id), [["alt", "Lighthouse"]]);
  // Paragraphs become lines: "world\nhello" is not "world hello".
  assert.deepEqual(titles(split.id), []);
});

test("an expired filter is never applied; the clock moves, no waiting", async (t) => {
  const { s, alice, bob } = await world(t);
  const T = Date.now();
  s.app.now = () => T;
  await filter(s, bob, { context: ["home"], filter_action: "hide", expires_in: 3600, keywords_attributes: [{ keyword: "election" }] });
  await filter(s, bob, { title: "warned", expires_in: 7200, keywords_attributes: [{ keyword: "poll" }] });
  const p = await post(s, alice, "election poll results");
  assert.deepEqual(ids(await home(s, bob)), []);
  s.app.now = () => T + 3600 * 1000 - 1;
  assert.deepEqual(ids(await home(s, bob)), []);
  s.app.now = () => T + 3600 * 1000;
  const page = await home(s, bob);
  assert.deepEqual(ids(page), [p.id]);
  assert.deepEqual(page[0].filtered.map((r: any) => r.filter.title), ["warned"]);
  s.app.now = () => T + 7200 * 1000 + 1;
  assert.deepEqual((await home(s, bob))[0].filtered, []);
  // Expired filters are still listed, as Mastodon lists them.
  assert.equal((await s.api(bob, "GET", "/api/v2/filters")).length, 2);
  // Extending the expiry applies it again at once.
  const [first] = await s.api(bob, "GET", "/api/v2/filters");
  await s.api(bob, "PUT", `/api/v2/filters/${first.id}`, { expires_in: 60 });
  assert.deepEqual(ids(await home(s, bob)), []);
});

test("changes apply at once: a new keyword, a removed filter, a v1 edit", async (t) => {
  const { s, alice, bob } = await world(t);
  const p = await post(s, alice, "sports results");
  const f = await filter(s, bob, { filter_action: "hide", keywords_attributes: [{ keyword: "weather" }] });
  assert.deepEqual(ids(await home(s, bob)), [p.id]);
  const kw = await s.api(bob, "POST", `/api/v2/filters/${f.id}/keywords`, { keyword: "sports" });
  assert.deepEqual(ids(await home(s, bob)), []);
  await s.api(bob, "PUT", `/api/v1/filters/${kw.id}`, { phrase: "opera" });
  assert.deepEqual(ids(await home(s, bob)), [p.id]);
  await s.api(bob, "PUT", `/api/v2/filters/keywords/${kw.id}`, { keyword: "results" });
  assert.deepEqual(ids(await home(s, bob)), []);
  await s.api(bob, "DELETE", `/api/v2/filters/${f.id}`);
  assert.deepEqual(ids(await home(s, bob)), [p.id]);
  // v1 irreversible is hide.
  await s.api(bob, "POST", "/api/v1/filters", { phrase: "sports", context: ["home"], irreversible: true });
  assert.deepEqual(ids(await home(s, bob)), []);
});

test("a filter naming a status matches it and boosts of it; status_matches lists the ids", async (t) => {
  const { s, alice, bob } = await world(t);
  const carol = await s.user("carol");
  await s.api(bob, "POST", `/api/v1/accounts/${carol.id}/follow`);
  const p = await post(s, alice, "an ordinary post");
  const boost = await s.api(carol, "POST", `/api/v1/statuses/${p.id}/reblog`);
  const f = await s.api(bob, "POST", "/api/v2/filters", { title: "that post", context: ["home"] });
  await s.api(bob, "POST", `/api/v2/filters/${f.id}/statuses`, { status_id: p.id });
  const page = await home(s, bob);
  const entry = page.find((x) => x.id === boost.id);
  assert.deepEqual(entry.filtered[0].status_matches, [p.id]);
  assert.equal(entry.filtered[0].keyword_matches, null);
  assert.deepEqual(entry.reblog.filtered, entry.filtered);
  assert.deepEqual((await s.api(bob, "GET", `/api/v1/statuses/${p.id}`)).filtered[0].status_matches, [p.id]);
  // Hiding it drops the boost too.
  await s.api(bob, "PUT", `/api/v2/filters/${f.id}`, { filter_action: "hide" });
  assert.deepEqual(ids(await home(s, bob)), []);
});

test("hide matches the boosted post; a boost of the viewer's own post stays", async (t) => {
  const { s, bob } = await world(t);
  const carol = await s.user("carol");
  await s.api(bob, "POST", `/api/v1/accounts/${carol.id}/follow`);
  await filter(s, bob, { filter_action: "hide", keywords_attributes: [{ keyword: "ferry" }] });
  const theirs = await s.api(await s.user("dave"), "POST", "/api/v1/statuses", { status: "ferry times" });
  const mine = await post(s, bob, "my ferry photos");
  await s.api(carol, "POST", `/api/v1/statuses/${theirs.id}/reblog`);
  const b2 = await s.api(carol, "POST", `/api/v1/statuses/${mine.id}/reblog`);
  const page = await home(s, bob);
  // carol's boost of dave's post goes; bob's own post and carol's boost of it stay, annotated.
  assert.deepEqual(ids(page), [b2.id, mine.id]);
  assert.deepEqual(page.map((x) => x.filtered[0].keyword_matches), [["ferry"], ["ferry"]]);
});

test("paging goes on past a page the hide filter empties (Link follows the page as read)", async (t) => {
  const { s, alice, bob } = await world(t);
  await filter(s, bob, { filter_action: "hide", keywords_attributes: [{ keyword: "noise" }] });
  const old = await post(s, alice, "signal");
  for (let i = 0; i < 4; i++) await post(s, alice, `noise ${i}`);
  await s.drainJobs();
  const r = await s.req(bob, "GET", "/api/v1/timelines/home?limit=2");
  assert.deepEqual(r.body, []);
  const next = /<([^>]+)>; rel="next"/.exec(r.headers.get("link") ?? "")?.[1];
  assert.ok(next, "a next link on the emptied page");
  const r2 = await s.req(bob, "GET", next.slice(s.app.baseUrl.length));
  assert.deepEqual(r2.body, []);
  const next2 = /<([^>]+)>; rel="next"/.exec(r2.headers.get("link") ?? "")![1];
  assert.deepEqual(ids((await s.req(bob, "GET", next2.slice(s.app.baseUrl.length))).body), [old.id]);
});

test("a user's filters are compiled once and kept until a change or the first expiry", async (t) => {
  const { s, alice, bob } = await world(t);
  const T = Date.now();
  s.app.now = () => T;
  const f = await filter(s, bob, { expires_in: 600, keywords_attributes: [{ keyword: "x" }] });
  await post(s, alice, "x marks the spot");
  await home(s, bob);
  const compiled = filterRulesOf(s.app, bob.id);
  await home(s, bob);
  assert.equal(filterRulesOf(s.app, bob.id), compiled, "the second read reuses the compiled filters");
  await s.api(bob, "POST", `/api/v2/filters/${f.id}/keywords`, { keyword: "y" });
  const recompiled = filterRulesOf(s.app, bob.id);
  assert.notEqual(recompiled, compiled, "a change recompiles");
  s.app.now = () => T + 600_000;
  const afterExpiry = filterRulesOf(s.app, bob.id);
  assert.notEqual(afterExpiry, recompiled, "the first expiry recompiles");
  assert.deepEqual(afterExpiry.filters, []);
  // alice, who has no filters, gets an empty set, also kept.
  assert.equal(filterRulesOf(s.app, alice.id), filterRulesOf(s.app, alice.id));
});

test("an edited post is matched on its new text", async (t) => {
  const { s, alice, bob } = await world(t);
  await filter(s, bob, { keywords_attributes: [{ keyword: "rumour", whole_word: true }] });
  const p = await post(s, alice, "nothing to see");
  assert.deepEqual((await home(s, bob))[0].filtered, []);
  await s.api(alice, "PUT", `/api/v1/statuses/${p.id}`, { status: "a rumour, actually" });
  assert.deepEqual((await home(s, bob))[0].filtered[0].keyword_matches, ["rumour"]);
  await s.api(alice, "PUT", `/api/v1/statuses/${p.id}`, { status: "retracted", spoiler_text: "Rumour" });
  assert.deepEqual((await home(s, bob))[0].filtered[0].keyword_matches, ["Rumour"]);
});

test("a keyword in a poll option filters the post (Mastodon's searchable text includes the options)", async (t) => {
  const { s, alice, bob } = await world(t);
  await filter(s, bob, { context: ["home"], filter_action: "hide", keywords_attributes: [{ keyword: "pineapple" }] });
  const poll = await post(s, alice, "Pizza question", { poll: { options: ["Pineapple", "Olives"], expires_in: 3600 } });
  const plain = await post(s, alice, "Pizza tonight");
  assert.deepEqual(ids(await home(s, bob)), [plain.id]);
  const shown = await s.api(bob, "GET", `/api/v1/statuses/${poll.id}`);
  assert.deepEqual(shown.filtered.map((m: any) => m.keyword_matches), [["Pineapple"]]);
});
