// The settings page's CSV exports and imports (issue 16 part 6): Mastodon's exact formats, a
// round trip into a second account, broken rows reported while the rest import, overwrite,
// CSRF and sign-in.
import { test } from "node:test";
import assert from "node:assert/strict";
import { startTestServer, type TestServer } from "../helpers/server.ts";
import { Browser, formWithButton, PASSWORD } from "../api/oauth-helpers.ts";

/** Posts the import form as a browser would: multipart, with the page's CSRF token. */
async function upload(s: TestServer, b: Browser, type: string, csv: string, mode = "merge", token?: string) {
  const page = await b.fetch("/settings/import-export");
  const fields = formWithButton(page.text, "Upload").fields;
  const form = new FormData();
  form.set("authenticity_token", token ?? fields.authenticity_token);
  form.set("form_import[type]", type);
  form.set("form_import[mode]", mode);
  form.set("form_import[data]", new Blob([csv], { type: "text/csv" }), `${type}.csv`);
  const cookie = [...b.cookies].map(([k, v]) => `${k}=${v}`).join("; ");
  const res = await fetch(`${s.url}/settings/imports`, { method: "POST", body: form, headers: { cookie, accept: "text/html" }, redirect: "manual" });
  return { status: res.status, location: res.headers.get("location"), text: await res.text() };
}

const KINDS = ["follows", "lists", "blocks", "mutes", "domain_blocks", "bookmarks"];
const IMPORT_TYPE: Record<string, string> = { follows: "following", lists: "lists", blocks: "blocking", mutes: "muting", domain_blocks: "domain_blocking", bookmarks: "bookmarks" };

test("exports in Mastodon's CSV formats, imported into a second account give the same relationships", async (t) => {
  const s = await startTestServer();
  t.after(() => s.close());
  const d = s.app.config.domain;
  const alice = await s.user("alice", { password: PASSWORD });
  const erin = await s.user("erin", { password: PASSWORD });
  const bob = await s.user("bob"), carol = await s.user("carol"), dave = await s.user("dave");
  await s.api(alice, "POST", `/api/v1/accounts/${bob.id}/follow`, { notify: true, languages: ["en", "de"] });
  await s.api(alice, "POST", `/api/v1/accounts/${carol.id}/follow`, { reblogs: false });
  await s.api(alice, "POST", `/api/v1/accounts/${dave.id}/block`);
  await s.api(alice, "POST", `/api/v1/accounts/${carol.id}/mute`, { notifications: false });
  await s.api(alice, "POST", "/api/v1/domain_blocks", { domain: "spam.example" });
  const list = await s.api(alice, "POST", "/api/v1/lists", { title: "Friends, close" });
  await s.api(alice, "POST", `/api/v1/lists/${list.id}/accounts`, { account_ids: [bob.id] });
  const post = await s.api(bob, "POST", "/api/v1/statuses", { status: "keep this" });
  await s.api(alice, "POST", `/api/v1/statuses/${post.id}/bookmark`);
  await s.api(bob, "POST", `/api/v1/accounts/${alice.id}/follow`);
  await s.drainJobs();

  const a = new Browser(s.url);
  assert.equal((await a.fetch("/settings/exports/follows.csv")).status, 302); // not signed in
  await a.signIn("alice");
  const page = await a.fetch("/settings/import-export");
  assert.equal(page.status, 200);
  assert.match(page.text, /<label for="import-data">CSV file<\/label>/);
  const files: Record<string, string> = {};
  for (const k of [...KINDS, "followers"]) {
    const res = await a.fetch(`/settings/exports/${k}.csv`);
    assert.equal(res.status, 200);
    assert.match(res.headers.get("content-type") ?? "", /^text\/csv/);
    files[k] = res.text;
  }
  assert.equal(
    files.follows,
    `Account address,Show boosts,Notify on new posts,Languages\ncarol@${d},false,false,\nbob@${d},true,true,"en, de"\n`,
  );
  assert.equal(files.mutes, `Account address,Hide notifications\ncarol@${d},false\n`);
  assert.equal(files.blocks, `dave@${d}\n`);
  assert.equal(files.domain_blocks, "spam.example\n");
  assert.equal(files.lists, `"Friends, close",bob@${d}\n`);
  assert.equal(files.bookmarks, `${post.uri}\n`);
  assert.equal(files.followers, `bob@${d}\n`);
  assert.equal((await a.fetch("/settings/exports/nothing.csv")).status, 404);

  // Into erin's account, each through the form; then erin's exports are alice's.
  const e = new Browser(s.url);
  await e.signIn("erin");
  for (const k of KINDS) {
    const res = await upload(s, e, IMPORT_TYPE[k], files[k]);
    assert.deepEqual([res.status, res.location], [302, "/settings/import-export"], res.text);
  }
  const before = await e.fetch("/settings/import-export");
  assert.match(before.text, /In progress, 0 of 2 processed/);
  await s.drainJobs();
  // The same rows (an import follows the file's order, newest first, so ids come out reversed).
  const lines = (csv: string) => csv.split("\n").sort();
  for (const k of KINDS) assert.deepEqual(lines((await e.fetch(`/settings/exports/${k}.csv`)).text), lines(files[k]), k);
  const [rel] = await s.api(erin, "GET", `/api/v1/accounts/relationships?id[]=${bob.id}`);
  assert.deepEqual([rel.following, rel.notifying, rel.languages], [true, true, ["en", "de"]]);
  const done = await e.fetch("/settings/import-export");
  assert.match(done.text, /Finished, 2 of 2 processed, 2 imported/);
});

test("a bad row is reported and the rest imported; overwrite drops what the file lacks; CSRF is checked", async (t) => {
  const s = await startTestServer();
  t.after(() => s.close());
  const d = s.app.config.domain;
  const erin = await s.user("erin", { password: PASSWORD });
  const bob = await s.user("bob"), carol = await s.user("carol");
  await s.api(erin, "POST", `/api/v1/accounts/${carol.id}/follow`);
  const e = new Browser(s.url);
  await e.signIn("erin");

  // Old headerless format, a malformed address, an unknown local account, one's own account.
  const csv = `bob@${d}\nnot an address\nnobody@${d}\nerin@${d}\n`;
  assert.equal((await upload(s, e, "following", csv)).status, 302);
  await s.drainJobs();
  const page = await e.fetch("/settings/import-export");
  assert.match(page.text, /Finished, 4 of 4 processed, 1 imported/);
  assert.match(page.text, /3 row\(s\) not imported/);
  assert.match(page.text, /<code>not an address<\/code>: Account address is invalid/);
  assert.match(page.text, new RegExp(`<code>nobody@${d.replace(/\./g, "\\.")}</code>: Account not found`));
  assert.match(page.text, /Following your own account is not allowed/);
  let [rb, rc] = await s.api(erin, "GET", `/api/v1/accounts/relationships?id[]=${bob.id}&id[]=${carol.id}`);
  assert.deepEqual([rb.following, rc.following], [true, true]); // merge kept carol

  // Overwrite: carol is not in the file, so she is unfollowed.
  assert.equal((await upload(s, e, "following", `Account address,Show boosts,Notify on new posts,Languages\nbob@${d},false,false,\n`, "overwrite")).status, 302);
  await s.drainJobs();
  [rb, rc] = await s.api(erin, "GET", `/api/v1/accounts/relationships?id[]=${bob.id}&id[]=${carol.id}`);
  assert.deepEqual([rb.following, rb.showing_reblogs, rc.following], [true, false, false]);

  // Refused up front: a wrong token, an empty file, an unknown type.
  assert.equal((await upload(s, e, "blocking", `bob@${d}\n`, "merge", "forged")).status, 422);
  const empty = await upload(s, e, "blocking", "\n\n");
  assert.equal(empty.status, 422);
  assert.match(empty.text, /Data is empty/);
  assert.equal((await upload(s, e, "statuses", `bob@${d}\n`)).status, 422);
  const [rel] = await s.api(erin, "GET", `/api/v1/accounts/relationships?id[]=${bob.id}`);
  assert.equal(rel.blocking, false);
});

test("a browser's multipart body with a mixed-case boundary (Chromium's) is read", async (t) => {
  const s = await startTestServer();
  t.after(() => s.close());
  const d = s.app.config.domain;
  const alice = await s.user("alice", { password: PASSWORD });
  const bob = await s.user("bob");
  const a = new Browser(s.url);
  await a.signIn("alice");
  const token = formWithButton((await a.fetch("/settings/import-export")).text, "Upload").fields.authenticity_token;
  const boundary = "----WebKitFormBoundaryAbCdEfGh12345678";
  const part = (name: string, value: string, file?: string) =>
    `--${boundary}\r\nContent-Disposition: form-data; name="${name}"${file ? `; filename="${file}"\r\nContent-Type: text/csv` : ""}\r\n\r\n${value}\r\n`;
  const body = part("authenticity_token", token) + part("form_import[type]", "following") + part("form_import[mode]", "merge") + part("form_import[data]", `bob@${d}\n`, "f.csv") + `--${boundary}--\r\n`;
  const cookie = [...a.cookies].map(([k, v]) => `${k}=${v}`).join("; ");
  const res = await fetch(`${s.url}/settings/imports`, { method: "POST", body, headers: { cookie, accept: "text/html", "content-type": `multipart/form-data; boundary=${boundary}` }, redirect: "manual" });
  assert.equal(res.status, 302, await res.text());
  await s.drainJobs();
  const [rel] = await s.api(alice, "GET", `/api/v1/accounts/relationships?id[]=${bob.id}`);
  assert.equal(rel.following, true);
});
