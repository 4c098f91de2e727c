import type { ActionLog } from "../../admin/audit.ts";
import { esc, layout } from "./layout.ts";

// /admin/action_logs: the audit log, newest first, for staff with view_audit_log. Server-rendered,
// no script; the only form is the filter (GET), so nothing here can change an entry.

export const AUDIT_PAGE_PATH = "/admin/action_logs";

export interface AuditLogView {
  nonce: string;
  instanceTitle: string;
  handle: string;
  entries: ActionLog[];
  actors: { accountId: string; name: string }[];
  kinds: { action: string; targetType: string }[];
  /** target: the target_account_id filter, with the account's handle when it exists. */
  filter: { accountId?: string; actionType: string; maxId?: string; target?: { accountId: string; name: string | null } };
  /** The max_id of the next (older) page, when there is one. */
  nextMaxId: string | null;
  canViewDashboard: boolean;
}

/** Mastodon's action_type filter values: `suspend_account`, `create_domain_block`, `change_role_user`. */
export function actionTypeKey(k: { action: string; targetType: string }): string {
  return `${k.action}_${k.targetType.replace(/(?<=[a-z0-9])([A-Z])/g, "_$1").toLowerCase()}`;
}

const STYLE = `
main{max-width:72rem;margin:1.5rem auto}
header.top{display:flex;justify-content:space-between;align-items:center;gap:1rem;flex-wrap:wrap}
form.filters{display:flex;gap:1rem;align-items:end;flex-wrap:wrap;margin:1rem 0}
form.filters label{margin:0}
form.filters select{font:inherit;padding:.35rem}
table.log{border-collapse:collapse;width:100%;font-size:.92rem}
table.log th,table.log td{padding:.35rem .6rem;border-bottom:1px solid #e4e4ea;text-align:left;vertical-align:top}
table.log time{white-space:nowrap;font-variant-numeric:tabular-nums}
ul.changes{list-style:none;margin:0;padding:0}
ul.changes code{word-break:break-all}
nav.pages{display:flex;gap:1.5rem;margin:1rem 0}
`;

const time = (ms: number) => {
  const iso = new Date(ms).toISOString();
  return `<time datetime="${esc(iso)}">${esc(iso.replace("T", " ").slice(0, 19))} UTC</time>`;
};

const value = (v: unknown) => (v === null || v === undefined ? "<em>none</em>" : `<code>${esc(typeof v === "string" ? v : JSON.stringify(v))}</code>`);

function changesList(changes: ActionLog["changes"]): string {
  const rows = Object.entries(changes);
  if (rows.length === 0) return '<span class="muted">no change</span>';
  return `<ul class="changes">${rows.map(([k, [b, a]]) => `<li><strong>${esc(k)}</strong>: ${value(b)} → ${value(a)}</li>`).join("")}</ul>`;
}

function query(f: { accountId?: string; actionType?: string; targetAccountId?: string; maxId?: string }): string {
  const q = new URLSearchParams();
  if (f.accountId) q.set("account_id", f.accountId);
  if (f.actionType) q.set("action_type", f.actionType);
  if (f.targetAccountId) q.set("target_account_id", f.targetAccountId);
  if (f.maxId) q.set("max_id", f.maxId);
  const s = q.toString();
  return s ? `${AUDIT_PAGE_PATH}?${s}` : AUDIT_PAGE_PATH;
}

function row(e: ActionLog): string {
  const actor = e.accountId
    ? `<a href="${esc(query({ accountId: e.accountId }))}">${esc(e.actorName)}</a>`
    : `<span class="muted">${esc(e.actorName)}</span>`;
  const name = `<strong>${esc(e.humanIdentifier ?? e.targetId ?? "")}</strong>`;
  // An account's entries (Mastodon's target_account_id) are a click away.
  const target = `${esc(e.targetType)} ${e.targetType === "Account" && e.targetId ? `<a href="${esc(query({ targetAccountId: e.targetId }))}">${name}</a>` : name}`;
  return `<tr data-id="${esc(e.id)}"><td>${time(e.createdAt)}</td><td>${actor} <span class="muted">(${esc(e.source)})</span></td><td>${esc(e.action)}</td><td>${target}</td><td>${changesList(e.changes)}</td></tr>`;
}

function filters(v: AuditLogView): string {
  const opt = (val: string, label: string, selected: boolean) => `<option value="${esc(val)}"${selected ? " selected" : ""}>${esc(label)}</option>`;
  const actors = [opt("", "Everyone", !v.filter.accountId), ...v.actors.map((a) => opt(a.accountId, a.name, a.accountId === v.filter.accountId))].join("");
  const kinds = [opt("", "Any action", v.filter.actionType === ""), ...v.kinds.map((k) => opt(actionTypeKey(k), `${k.targetType}: ${k.action}`, actionTypeKey(k) === v.filter.actionType))].join("");
  return `<form class="filters" method="get" action="${AUDIT_PAGE_PATH}" role="search">
<div><label for="f-account">Staff member</label><select id="f-account" name="account_id">${actors}</select></div>
<div><label for="f-action">Action</label><select id="f-action" name="action_type">${kinds}</select></div>
${targetFilter(v)}
<div><button type="submit">Filter</button> <a href="${AUDIT_PAGE_PATH}">Clear</a></div></form>`;
}

/** The target account filter has no control of its own (Mastodon links to it from an account): shown while set, with a way out. */
function targetFilter(v: AuditLogView): string {
  const t = v.filter.target;
  if (!t) return "";
  const without = query({ accountId: v.filter.accountId, actionType: v.filter.actionType });
  return `<div id="f-target"><input type="hidden" name="target_account_id" value="${esc(t.accountId)}">About <strong>${esc(t.name ?? `account ${t.accountId}`)}</strong> <a href="${esc(without)}">any target</a></div>`;
}

export function adminAuditLogPage(v: AuditLogView): string {
  const kept = { accountId: v.filter.accountId, actionType: v.filter.actionType, targetAccountId: v.filter.target?.accountId };
  const table = v.entries.length
    ? `<table class="log" id="log"><thead><tr><th scope="col">Time</th><th scope="col">Staff member</th><th scope="col">Action</th><th scope="col">Target</th><th scope="col">Changes</th></tr></thead><tbody>${v.entries.map(row).join("")}</tbody></table>`
    : '<p id="log">No entries.</p>';
  const pages = [
    v.filter.maxId ? `<a href="${esc(query(kept))}" rel="first">Newest</a>` : "",
    v.nextMaxId ? `<a href="${esc(query({ ...kept, maxId: v.nextMaxId }))}" rel="next">Older</a>` : "",
  ].join("");
  const dashboard = v.canViewDashboard ? ' · <a href="/admin/dashboard">Dashboard</a>' : "";
  const body = `<header class="top"><h1>${esc(v.instanceTitle)}: audit log</h1><div>Signed in as <strong>${esc(v.handle)}</strong>${dashboard}</div></header>
<p class="muted">Every action taken by staff, from the API, the command line or a job, newest first. Entries cannot be changed.</p>
${filters(v)}
${table}
<nav class="pages" aria-label="Pages">${pages}</nav>`;
  return layout({ title: `Audit log - ${v.instanceTitle}`, body, nonce: v.nonce, style: STYLE });
}
