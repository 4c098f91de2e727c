// Discovery through the client API and jobs: accounts/lookup and POST /api/v1/follows with
// remote handles, mention prefetch of new and edited posts, statuses by uri, stale refresh.
import { test } from "node:test";
import assert from "node:assert/strict";
import { startTestServer } from "../helpers/server.ts";
import { startFakeRemote } from "../helpers/fake-remote.ts";
import { resolveStatusByUri } from "../../src/federation/resolve/statuses.ts";
import { refreshStaleAccounts } from "../../src/federation/resolve/jobs.ts";
import { resolveAccountByUri } from "../../src/federation/resolve/accounts.ts";
import { findAccountByUri } from "../../src/storage/accounts.ts";
import { touchAccountFetched } from "../../src/storage/remote-accounts.ts";

const AS = "https://www.w3.org/ns/activitystreams";
const PUBLIC = `${AS}#Public`;

test("accounts/lookup: a signed-in caller may name an unknown remote handle; anonymous callers only known ones", async (t) => {
  const s = await startTestServer();
  const remote = await startFakeRemote();
  t.after(() => Promise.all([s.close(), remote.close()]));
  const alice = await s.user("alice");
  remote.actor("bob", { extra: { name: "Bob" } });
  const acct = `bob@${remote.domain}`;

  const anon = await s.req(null, "GET", `/api/v1/accounts/lookup?acct=${encodeURIComponent(acct)}`);
  assert.equal(anon.status, 404);
  assert.equal(remote.requests.length, 0);

  const found = await s.api(alice, "GET", `/api/v1/accounts/lookup?acct=${encodeURIComponent("@" + acct)}`);
  assert.equal(found.acct, acct);
  assert.equal(found.display_name, "Bob");
  assert.equal((await s.api(null, "GET", `/api/v1/accounts/lookup?acct=${encodeURIComponent(acct)}`)).id, found.id);

  const missing = await s.req(alice, "GET", `/api/v1/accounts/lookup?acct=${encodeURIComponent(`nobody@${remote.domain}`)}`);
  assert.equal(missing.status, 404);
  assert.deepEqual(missing.body, { error: "Record not found" });
  // A domain that does not resolve has no accounts: 404, not a server error.
  assert.equal((await s.req(alice, "GET", "/api/v1/accounts/lookup?acct=someone@nowhere.invalid")).status, 404);
});

test("POST /api/v1/follows with a remote handle resolves it, sends the Follow, and repeats without error", async (t) => {
  const s = await startTestServer();
  const remote = await startFakeRemote();
  t.after(() => Promise.all([s.close(), remote.close()]));
  const alice = await s.user("alice");
  const bob = remote.actor("bob");

  const acct = await s.api(alice, "POST", "/api/v1/follows", { uri: `bob@${remote.domain}` });
  assert.equal(acct.acct, `bob@${remote.domain}`);
  assert.equal(acct.uri, bob.id);
  await s.drainJobs();
  const follow = await remote.waitFor((d) => d.body?.type === "Follow");
  assert.equal(follow.body.object, bob.id);
  assert.equal(follow.body.actor, alice.account.uri);

  const again = await s.api(alice, "POST", "/api/v1/follows", { uri: `@bob@${remote.domain}` });
  assert.equal(again.id, acct.id);
  const rel = await s.api(alice, "GET", `/api/v1/accounts/relationships?id[]=${acct.id}`);
  assert.equal(rel[0].requested || rel[0].following, true);

  const unknown = await s.req(alice, "POST", "/api/v1/follows", { uri: `nobody@${remote.domain}` });
  assert.equal(unknown.status, 404);
});

test("a local post mentioning an unknown remote handle links the mention; edits resolve new ones", async (t) => {
  const s = await startTestServer();
  const remote = await startFakeRemote();
  t.after(() => Promise.all([s.close(), remote.close()]));
  const alice = await s.user("alice");
  const bob = remote.actor("bob");
  const carol = remote.actor("carol");

  const post = await s.api(alice, "POST", "/api/v1/statuses", { status: `hi @bob@${remote.domain} and @ghost@${remote.domain}` });
  assert.deepEqual(
    post.mentions.map((m: any) => [m.acct, m.url]),
    [[`bob@${remote.domain}`, `${remote.origin}/@bob`]],
  );
  assert.ok(post.content.includes(`href="${remote.origin}/@bob"`));
  assert.ok(findAccountByUri(s.app.db, bob.id));

  const edited = await s.api(alice, "PUT", `/api/v1/statuses/${post.id}`, { status: `hi @bob@${remote.domain} and @carol@${remote.domain}` });
  assert.deepEqual(edited.mentions.map((m: any) => m.acct).sort(), [`bob@${remote.domain}`, `carol@${remote.domain}`]);
  assert.ok(findAccountByUri(s.app.db, carol.id));

  // Known handles cost no further request.
  const n = remote.requests.length;
  await s.api(alice, "POST", "/api/v1/statuses", { status: `again @bob@${remote.domain}` });
  assert.equal(remote.requests.length, n);
});

test("resolveStatusByUri stores a Note by its author, once; a Note claiming an author elsewhere is refused", async (t) => {
  const s = await startTestServer();
  const remote = await startFakeRemote();
  const other = await startFakeRemote();
  t.after(() => Promise.all([s.close(), remote.close(), other.close()]));
  const bob = remote.actor("bob");
  const mallory = other.actor("mallory");
  const note = (id: string, attributedTo: string) => ({
    "@context": AS,
    id,
    type: "Note",
    attributedTo,
    content: "<p>birds</p>",
    published: "2026-03-04T05:06:07Z",
    to: [PUBLIC],
    cc: [],
  });
  remote.serve("/users/bob/statuses/1", note(`${remote.origin}/users/bob/statuses/1`, bob.id));
  remote.serve("/notes/2", note(`${remote.origin}/notes/2`, mallory.id));

  const st = await resolveStatusByUri(s.app, `${remote.origin}/users/bob/statuses/1`);
  assert.ok(st);
  assert.equal(st.uri, `${remote.origin}/users/bob/statuses/1`);
  assert.equal(st.accountId, findAccountByUri(s.app.db, bob.id)?.id);
  assert.equal(st.visibility, "public");
  const n = remote.requests.length;
  assert.equal((await resolveStatusByUri(s.app, st.uri))?.id, st.id);
  assert.equal(remote.requests.length, n);

  assert.equal(await resolveStatusByUri(s.app, `${remote.origin}/notes/2`), undefined);
  assert.equal(findAccountByUri(s.app.db, mallory.id), undefined);
  assert.equal(await resolveStatusByUri(s.app, `${remote.origin}/notes/404`), undefined);
  assert.equal(await resolveStatusByUri(s.app, "not a url"), undefined);
});

test("stale remote accounts are refreshed by the periodic task, a small batch at a time", async (t) => {
  const s = await startTestServer();
  const remote = await startFakeRemote();
  t.after(() => Promise.all([s.close(), remote.close()]));
  const bob = remote.actor("bob");
  const carol = remote.actor("carol");
  const b = await resolveAccountByUri(s.app, bob.id);
  const c = await resolveAccountByUri(s.app, carol.id);
  assert.ok(b && c);
  bob.doc.name = "Bob, refreshed";
  carol.doc.name = "Carol, refreshed";

  // Fresh accounts are left alone.
  assert.equal(await refreshStaleAccounts(s.app), 0);
  const dayAgo = s.app.now() - 86_400_000 - 1;
  touchAccountFetched(s.app.db, b.id, dayAgo);
  // The task runs on the first drain of a new server.
  await s.drainJobs();
  assert.equal(findAccountByUri(s.app.db, bob.id)?.displayName, "Bob, refreshed");
  assert.ok(findAccountByUri(s.app.db, bob.id)!.fetchedAt! > dayAgo);
  assert.equal(findAccountByUri(s.app.db, carol.id)?.displayName, "CAROL");

  // A gone actor is not retried on every run: its fetch time moves on.
  remote.serve("/users/carol", 410);
  touchAccountFetched(s.app.db, c.id, dayAgo);
  assert.equal(await refreshStaleAccounts(s.app), 1);
  assert.ok(findAccountByUri(s.app.db, carol.id)!.fetchedAt! > dayAgo);
  assert.equal(await refreshStaleAccounts(s.app), 0);
});

test("a peer cannot claim another server's links through `url`: lookups by web URL stay on the uri's host", async (t) => {
  const s = await startTestServer();
  const victim = await startFakeRemote();
  const evil = await startFakeRemote();
  t.after(() => Promise.all([s.close(), victim.close(), evil.close()]));
  const alice = await s.user("alice");
  const bobUrl = `${victim.origin}/@bob`;
  const postUrl = `${victim.origin}/@bob/1`;
  const eve = evil.actor("eve", { extra: { url: bobUrl } });
  evil.serve("/notes/1", {
    "@context": AS,
    id: `${evil.origin}/notes/1`,
    type: "Note",
    attributedTo: eve.id,
    url: postUrl,
    content: "<p>not bob</p>",
    published: "2020-01-01T00:00:00Z",
    to: [PUBLIC],
    cc: [],
  });
  const fake = await resolveStatusByUri(s.app, `${evil.origin}/notes/1`);
  assert.ok(fake, "eve's post is stored (with the url she wrote)");

  const search = async (q: string) => s.api(alice, "GET", `/api/v2/search?q=${encodeURIComponent(q)}`);
  const profile = await search(bobUrl);
  assert.deepEqual(profile.accounts, [], "bob's profile URL does not find eve");
  const post = await search(postUrl);
  assert.deepEqual(post.statuses, [], "bob's post URL does not find eve's post");
  // Federation: an Announce of bob's post URL must not resolve to eve's post either.
  const resolved = await resolveStatusByUri(s.app, postUrl);
  assert.notEqual(resolved?.id, fake.id);
  // eve's own URLs still work.
  assert.equal((await search(`${evil.origin}/notes/1`)).statuses[0]?.id, fake.id);
});
