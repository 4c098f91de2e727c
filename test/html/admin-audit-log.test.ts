// The audit log page (issue 13 part 4): Mastodon's /admin/action_logs, for staff with
// view_audit_log through the web session. Entries come from real admin actions over the API;
// the page shows actor, action, target, time and changes, escaped, newest first, 40 a page,
// filtered by staff member and action type, with no form that changes anything.
import assert from "node:assert/strict";
import { test } from "node:test";
import { hasChromium, openBrowser, signInWithForm } from "../helpers/browser.ts";
import { startTestServer } from "../helpers/server.ts";
import { Browser, parseForms } from "../api/oauth-helpers.ts";

const ADMIN_SCOPES = ["read", "write", "admin:read", "admin:write"];
const HOSTILE = `<script>alert("x")</script>`;

/** The rows of the log table as [actor, action, target, changes] text, tags stripped. */
function rows(html: string): string[][] {
  const body = html.match(/<tbody>([\s\S]*?)<\/tbody>/)?.[1] ?? "";
  const text = (s: string) => s.replace(/<\/li>(?!<\/ul>)/g, "; ").replace(/<[^>]+>/g, "").replace(/&#(\d+);/g, (_, n) => String.fromCharCode(Number(n))).replace(/&amp;/g, "&").trim();
  return [...body.matchAll(/<tr[^>]*>([\s\S]*?)<\/tr>/g)].map((m) => [...m[1].matchAll(/<td>([\s\S]*?)<\/td>/g)].slice(1).map((c) => text(c[1])));
}

const nextLink = (html: string) => html.match(/<a href="([^"]+)" rel="next">/)?.[1]?.replace(/&#38;/g, "&");

test("the audit log page: entries from admin actions, filters, paging, escaping, permissions", async (t) => {
  const s = await startTestServer();
  t.after(() => s.close());
  const boss = await s.user("boss", { role: "owner", scopes: ADMIN_SCOPES });
  const mia = await s.user("mia", { role: "moderator", scopes: ADMIN_SCOPES });
  const troll = await s.user("troll");
  await s.user("plain");

  // Real admin actions through the API.
  await s.api(boss, "POST", "/api/v1/admin/domain_blocks", { domain: "spam.example", severity: "suspend", private_comment: HOSTILE });
  await s.api(mia, "POST", `/api/v1/admin/accounts/${troll.id}/action`, { type: "silence" });

  // Anonymous: to the sign-in form, and back here after it (the query kept).
  const anon = await fetch(`${s.url}/admin/action_logs?account_id=${boss.id}`, { redirect: "manual" });
  assert.deepEqual([anon.status, anon.headers.get("location")], [302, `/auth/sign_in?return_to=${encodeURIComponent(`/admin/action_logs?account_id=${boss.id}`)}`]);
  const alias = await fetch(`${s.url}/admin/audit_log?max_id=5`, { redirect: "manual" });
  assert.deepEqual([alias.status, alias.headers.get("location")], [302, "/admin/action_logs?max_id=5"]);

  // A signed-in user without view_audit_log: 403.
  const plain = new Browser(s.url);
  assert.equal((await plain.signIn("plain")).status, 302);
  const refused = await plain.fetch("/admin/action_logs");
  assert.equal(refused.status, 403);
  assert.match(refused.text, /does not give access to the audit log/);

  // The moderator has view_audit_log (Mastodon's Moderator role).
  const b = new Browser(s.url);
  assert.equal((await b.signIn("mia")).status, 302);
  const page = await b.fetch("/admin/action_logs");
  assert.equal(page.status, 200);
  assert.match(page.headers.get("content-security-policy") ?? "", /script-src 'nonce-/);
  const [silenced, created] = rows(page.text);
  assert.deepEqual(silenced.slice(0, 3), ["mia (api)", "silence", "Account troll"]);
  assert.match(silenced[3], /^silenced_at: none → \d{4}-\d\d-\d\dT[\d:.]+Z$/);
  assert.deepEqual(created, [
    "boss (api)",
    "create",
    "DomainBlock spam.example",
    `severity: none → suspend; reject_media: none → false; reject_reports: none → false; private_comment: none → ${HOSTILE}; obfuscate: none → false`,
  ]);
  // The hostile comment is escaped: no script element from it, the text shown as text.
  assert.equal(page.text.includes(HOSTILE), false);
  assert.ok(page.text.includes("&#60;script&#62;alert(&#34;x&#34;)&#60;/script&#62;"));
  assert.equal((page.text.match(/<script/g) ?? []).length, 0);
  // Time of each entry as a <time> element.
  assert.equal((page.text.match(/<time datetime="\d{4}-\d\d-\d\dT[\d:.]+Z">/g) ?? []).length, 2);
  // Never editable: the only form is the GET filter, and nothing is posted from this page.
  const forms = [...page.text.matchAll(/<form[^>]*>/g)].map((m) => m[0]);
  assert.deepEqual(forms, ['<form class="filters" method="get" action="/admin/action_logs" role="search">']);
  assert.equal(parseForms(page.text).length, 1);
  // The filter's choices: the staff with entries and the kinds present, as Mastodon's keys.
  assert.match(page.text, new RegExp(`<option value="${boss.id}">boss</option><option value="${mia.id}">mia</option>`));
  assert.match(page.text, /<option value="silence_account">Account: silence<\/option><option value="create_domain_block">DomainBlock: create<\/option>/);
  // Moderators have view_dashboard too (Mastodon): the link to the dashboard is there.
  assert.match(page.text, /<a href="\/admin\/dashboard">Dashboard<\/a>/);

  // Filters: by staff member, by action type, both; an unknown action type matches nothing.
  const by = async (q: string) => rows((await b.fetch(`/admin/action_logs?${q}`)).text).map((r) => `${r[0]} ${r[1]}`);
  assert.deepEqual(await by(`account_id=${boss.id}`), ["boss (api) create"]);
  assert.deepEqual(await by("action_type=silence_account"), ["mia (api) silence"]);
  assert.deepEqual(await by(`account_id=${boss.id}&action_type=silence_account`), []);
  assert.deepEqual(await by("action_type=destroy_instance"), []);
  assert.match((await b.fetch("/admin/action_logs?action_type=silence_account")).text, /<option value="silence_account" selected>/);
  assert.equal((await b.fetch("/admin/action_logs?account_id=abc")).status, 400);
  assert.equal((await b.fetch("/admin/action_logs?max_id=%3Cx%3E")).status, 400);

  // Paging: 41 more entries (e-mail domain blocks by the owner) make two pages of 40, newest first.
  for (let i = 0; i < 41; i++) await s.api(boss, "POST", "/api/v1/admin/email_domain_blocks", { domain: `junk${String(i).padStart(2, "0")}.example` });
  const first = await b.fetch("/admin/action_logs");
  const firstRows = rows(first.text);
  assert.equal(firstRows.length, 40);
  assert.deepEqual(firstRows[0].slice(0, 3), ["boss (api)", "create", "EmailDomainBlock junk40.example"]);
  assert.deepEqual(firstRows[39].slice(0, 3), ["boss (api)", "create", "EmailDomainBlock junk01.example"]);
  const next = nextLink(first.text);
  assert.ok(next?.startsWith("/admin/action_logs?max_id="), next);
  const second = await b.fetch(next!);
  assert.deepEqual(rows(second.text).map((r) => r.slice(0, 3)), [
    ["boss (api)", "create", "EmailDomainBlock junk00.example"],
    ["mia (api)", "silence", "Account troll"],
    ["boss (api)", "create", "DomainBlock spam.example"],
  ]);
  assert.equal(nextLink(second.text), undefined);
  assert.match(second.text, /<a href="\/admin\/action_logs" rel="first">Newest<\/a>/);
  // The filter is kept across pages.
  const filtered = await b.fetch(`/admin/action_logs?account_id=${boss.id}&action_type=create_email_domain_block`);
  assert.equal(rows(filtered.text).length, 40);
  const filteredNext = nextLink(filtered.text)!;
  assert.match(filteredNext, new RegExp(`account_id=${boss.id}&action_type=create_email_domain_block&max_id=`));
  assert.deepEqual(rows((await b.fetch(filteredNext)).text).map((r) => r[2]), ["EmailDomainBlock junk00.example"]);

  // The dashboard links here.
  const dash = await b.fetch("/admin/dashboard");
  assert.match(dash.text, /<a href="\/admin\/action_logs">Audit log<\/a>/);
});

test("the audit log page: target_account_id (the account's entries and its user's, Mastodon's filter), filters read through indexes", async (t) => {
  const s = await startTestServer();
  t.after(() => s.close());
  const boss = await s.user("boss", { role: "owner", scopes: ADMIN_SCOPES });
  const troll = await s.user("troll");
  const plain = await s.user("plain");
  await s.api(boss, "POST", `/api/v1/admin/accounts/${troll.id}/action`, { type: "silence" });
  await s.api(boss, "POST", `/api/v1/admin/accounts/${troll.id}/action`, { type: "disable" });
  await s.api(boss, "POST", `/api/v1/admin/accounts/${plain.id}/action`, { type: "silence" });
  await s.api(boss, "POST", "/api/v1/admin/domain_blocks", { domain: "spam.example", severity: "suspend" });

  // Every statement the filtered pages prepare, to read their query plans afterwards.
  const prepared: string[] = [];
  const prepare = s.app.db.prepare.bind(s.app.db);
  s.app.db.prepare = ((sql: string) => (prepared.push(sql), prepare(sql))) as typeof s.app.db.prepare;
  t.after(() => {
    s.app.db.prepare = prepare;
  });

  const b = new Browser(s.url);
  assert.equal((await b.signIn("boss")).status, 302);
  const by = async (q: string) => rows((await b.fetch(`/admin/action_logs?${q}`)).text).map((r) => `${r[1]} ${r[2]}`);
  // The account (silence: target Account) and its user (disable: target User), not the others.
  assert.deepEqual(await by(`target_account_id=${troll.id}`), ["disable User troll", "silence Account troll"]);
  assert.deepEqual(await by(`target_account_id=${plain.id}`), ["silence Account plain"]);
  assert.deepEqual(await by(`target_account_id=${troll.id}&action_type=silence_account`), ["silence Account troll"]);
  assert.deepEqual(await by(`target_account_id=${troll.id}&account_id=${boss.id}&action_type=disable_user`), ["disable User troll"]);
  assert.deepEqual(await by(`target_account_id=${troll.id}&account_id=${plain.id}`), []);
  // An id no account has matches nothing (Mastodon initialises an account that has no entries).
  const unknown = await b.fetch("/admin/action_logs?target_account_id=424242");
  assert.deepEqual(rows(unknown.text), []);
  assert.match(unknown.text, /About <strong>account 424242<\/strong>/);
  assert.equal((await b.fetch("/admin/action_logs?target_account_id=abc")).status, 400);

  // The page: an account target links to its entries; while the filter is set the form keeps it
  // (hidden) and offers a way back, and paging links keep it.
  const all = await b.fetch("/admin/action_logs");
  assert.ok(all.text.includes(`<a href="/admin/action_logs?target_account_id=${troll.id}"><strong>troll</strong></a>`));
  assert.equal(all.text.includes('name="target_account_id"'), false);
  const page = await b.fetch(`/admin/action_logs?target_account_id=${troll.id}&action_type=silence_account&max_id=${"9".repeat(18)}`);
  assert.match(page.text, new RegExp(`<input type="hidden" name="target_account_id" value="${troll.id}">About <strong>troll</strong> <a href="/admin/action_logs\\?action_type=silence_account">any target</a>`));
  assert.ok(page.text.includes(`<a href="/admin/action_logs?action_type=silence_account&#38;target_account_id=${troll.id}" rel="first">Newest</a>`));

  // Index-driven: every read of the log is a seek on an equality, a one-row seek inside a
  // scalar subquery (the skips from one actor or kind to the next), or the walk of the primary
  // key newest first that stops after a page. The filters' choices used to be a DISTINCT and a
  // GROUP BY over every entry.
  const statements = [...new Set(prepared)].filter((sql) => sql.includes("admin_action_logs") && /^\s*(SELECT|WITH)/i.test(sql));
  assert.ok(statements.length >= 4, `${statements.length} statements`);
  for (const sql of statements) {
    const params = Object.fromEntries([...sql.matchAll(/@(\w+)/g)].map((m) => [m[1], 1]));
    const plan = prepare(`EXPLAIN QUERY PLAN ${sql}`).all(params) as { id: number; parent: number; detail: string }[];
    const parentOf = (r: { parent: number }) => plan.find((p) => p.id === r.parent)?.detail ?? "";
    const pageWalk = /^SELECT \* FROM admin_action_logs( WHERE id < @maxId)? ORDER BY id DESC LIMIT @limit$/.test(sql.trim());
    for (const r of plan.filter((r) => /^(SCAN|SEARCH) admin_action_logs\b/.test(r.detail))) {
      const ok =
        /\(\w+=\?/.test(r.detail) ||
        /SCALAR SUBQUERY/.test(parentOf(r)) ||
        (pageWalk && /^(SCAN admin_action_logs$|SEARCH admin_action_logs USING INTEGER PRIMARY KEY)/.test(r.detail));
      assert.ok(ok, `${r.detail}\n${sql}`);
    }
  }
});

test("the audit log page in a browser: renders with no CSP violation or script error", { skip: !hasChromium() && "no /usr/bin/chromium" }, async (t) => {
  const s = await startTestServer();
  t.after(() => s.close());
  const boss = await s.user("boss", { role: "owner", scopes: ADMIN_SCOPES });
  await s.api(boss, "POST", "/api/v1/admin/domain_blocks", { domain: "spam.example", severity: "silence", private_comment: HOSTILE });
  const b = await openBrowser();
  t.after(() => b.close());
  const { page } = b;
  await page.goto(`${s.url}/admin/audit_log`);
  assert.match(page.url(), /\/auth\/sign_in\?return_to=/);
  await signInWithForm(page, "boss", "correct horse battery");
  assert.equal(new URL(page.url()).pathname, "/admin/action_logs");
  assert.match(await page.title(), /^Audit log - /);
  const cells = await page.locator("#log tbody tr td").allInnerTexts();
  assert.equal(cells[1], "boss (api)");
  assert.equal(cells[2], "create");
  assert.equal(cells[3], "DomainBlock spam.example");
  assert.ok(cells[4].includes(`private_comment: none → ${HOSTILE}`), cells[4]);
  // Filtering through the form (GET) keeps to the same page.
  await page.selectOption("#f-action", "create_domain_block");
  await page.click("button[type=submit]");
  assert.equal(new URL(page.url()).searchParams.get("action_type"), "create_domain_block");
  assert.equal(await page.locator("#log tbody tr").count(), 1);
  await page.click("a[href='/admin/dashboard']");
  assert.equal(new URL(page.url()).pathname, "/admin/dashboard");
  await page.click("a[href='/admin/action_logs']");
  assert.equal(new URL(page.url()).pathname, "/admin/action_logs");
  assert.deepEqual(b.errors(), [], `console:\n${b.console.join("\n")}`);
});
