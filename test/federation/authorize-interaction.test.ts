import { test } from "node:test";
import assert from "node:assert/strict";
import { startTestServer } from "../helpers/server.ts";
import { startFakeRemote } from "../helpers/fake-remote.ts";
import { Browser, formWithButton } from "../api/oauth-helpers.ts";

// /authorize_interaction: the page the WebFinger subscribe template points remote people at.

test("remote interaction: sign in, see the remote account, follow it (a Follow goes out)", async (t) => {
  const s = await startTestServer();
  const remote = await startFakeRemote();
  t.after(async () => {
    await s.close();
    await remote.close();
  });
  const alice = await s.user("alice");
  const bob = remote.actor("bob");
  const jrd = await s.req(null, "GET", `/.well-known/webfinger?resource=acct:alice@${s.app.config.domain}`);
  const template = jrd.body.links.find((l: { rel: string }) => l.rel === "http://ostatus.org/schema/1.0/subscribe").template as string;
  const target = new URL(template.replace("{uri}", encodeURIComponent(`bob@${remote.domain}`)));
  const path = target.pathname + target.search;
  assert.equal(path, `/authorize_interaction?uri=${encodeURIComponent(`bob@${remote.domain}`)}`);

  const b = new Browser(s.url);
  const anon = await b.fetch(path);
  assert.equal(anon.status, 302);
  assert.equal(anon.location, `/auth/sign_in?return_to=${encodeURIComponent(path)}`);
  const signed = await b.signIn("alice", undefined, anon.location!);
  assert.equal(signed.location, path, "back to the interaction after signing in");

  const page = await b.fetch(path);
  assert.equal(page.status, 200);
  assert.match(page.text, new RegExp(`<h1>Follow @bob@${remote.domain.replace(/\./g, "\\.")}</h1>`));
  assert.match(page.text, /<p>I am bob<\/p>/, "the sanitised bio");
  const form = formWithButton(page.text, "Follow");
  const done = await b.fetch("/authorize_interaction", { form: form.fields });
  assert.equal(done.status, 200);
  assert.match(done.text, /is waiting for approval|You are following/);

  await s.drainJobs();
  const follow = await remote.waitFor((d) => d.body?.type === "Follow");
  assert.equal(follow.path, "/users/bob/inbox");
  assert.equal(follow.body.actor, alice.account.uri);
  assert.equal(follow.body.object, bob.id);
});

test("remote interaction: a local handle, unknown targets and a bad CSRF token", async (t) => {
  const s = await startTestServer();
  t.after(() => s.close());
  const alice = await s.user("alice");
  await s.user("bob");
  const b = new Browser(s.url);
  await b.signIn("alice");
  const page = await b.fetch(`/authorize_interaction?uri=${encodeURIComponent(`acct:bob@${s.app.config.domain}`)}`);
  assert.equal(page.status, 200);
  const form = formWithButton(page.text, "Follow");
  assert.equal((await b.fetch("/authorize_interaction", { form: { ...form.fields, authenticity_token: "forged" } })).status, 422);
  const done = await b.fetch("/authorize_interaction", { form: form.fields });
  assert.match(done.text, /You are following @bob@/);
  const [rel] = await s.api(alice, "GET", `/api/v1/accounts/relationships?id[]=${form.fields.account_id}`);
  assert.equal(rel.following, true);

  for (const uri of ["nobody", "acct:nobody@" + s.app.config.domain, "https://", "x".repeat(3000)]) {
    assert.equal((await b.fetch(`/authorize_interaction?uri=${encodeURIComponent(uri)}`)).status, 404, uri);
  }
  const self = await b.fetch(`/authorize_interaction?uri=alice`);
  assert.match(self.text, /This is your own account\./);
});

test("remote interaction never shows a post the signed-in user may not see", async (t) => {
  const s = await startTestServer();
  t.after(() => s.close());
  const alice = await s.user("alice");
  await s.user("bob");
  await s.user("carol");
  const dm = await s.api(alice, "POST", "/api/v1/statuses", { status: "@bob a secret", visibility: "direct" });
  const priv = await s.api(alice, "POST", "/api/v1/statuses", { status: "followers only", visibility: "private" });
  const pub = await s.api(alice, "POST", "/api/v1/statuses", { status: "for everyone" });
  const carol = new Browser(s.url);
  await carol.signIn("carol");
  for (const st of [dm, priv]) {
    for (const link of [st.url, st.uri]) {
      const r = await carol.fetch(`/authorize_interaction?uri=${encodeURIComponent(link)}`);
      assert.equal(r.status, 404, link);
      assert.doesNotMatch(r.text, /secret|followers only/);
    }
  }
  const open = await carol.fetch(`/authorize_interaction?uri=${encodeURIComponent(pub.url)}`);
  assert.equal(open.status, 200);
  assert.match(open.text, /for everyone/);
  // The mentioned account sees the direct post it was sent.
  const b = new Browser(s.url);
  await b.signIn("bob");
  assert.match((await b.fetch(`/authorize_interaction?uri=${encodeURIComponent(dm.url)}`)).text, /a secret/);
});
