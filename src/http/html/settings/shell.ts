import { esc, layout } from "../layout.ts";
import { hidden } from "../auth-pages.ts";
import { SETTINGS_NAV } from "./nav.ts";

// The settings area's page shell: the login pages' layout, wider, with the navigation and a
// sign-out button. Everything is a plain form (no JavaScript); every form carries the CSRF token.

const STYLE = `
main{max-width:44rem}
nav.settings ul{list-style:none;padding:0;margin:0 0 1.25rem;display:flex;flex-wrap:wrap;gap:.25rem 1rem;border-bottom:1px solid #ddd;padding-bottom:.5rem}
nav.settings a{color:#3a3ab0}
nav.settings a[aria-current=page]{font-weight:700;color:#1c1c24;text-decoration:none}
header.settings{display:flex;justify-content:space-between;align-items:center;gap:1rem}
.notice{background:#e8f5e9;border:1px solid #2e7d32;padding:.5rem .75rem;border-radius:4px}
textarea,select{width:100%;box-sizing:border-box;padding:.5rem;font:inherit;border:1px solid #888;border-radius:4px}
label.check{font-weight:400;display:flex;gap:.5rem;align-items:flex-start}
label.check input{margin-top:.35rem}
fieldset{border:1px solid #ddd;border-radius:4px;margin:1rem 0;padding:.5rem 1rem}
table.list{width:100%;border-collapse:collapse;font-size:.95rem}
table.list th,table.list td{text-align:left;padding:.4rem .3rem;border-bottom:1px solid #eee;vertical-align:top}
h2{font-size:1.1rem;margin:1.5rem 0 .5rem}
.visually-hidden{position:absolute;width:1px;height:1px;overflow:hidden;clip:rect(0 0 0 0);white-space:nowrap}
table.list input{width:100%;box-sizing:border-box}
`;

export interface SettingsPage {
  nonce: string;
  csrf: string;
  instanceTitle: string;
  handle: string;
  /** The path of the current page (marked in the navigation). */
  path: string;
  title: string;
  body: string;
  notice?: string;
  errors?: string[];
}

export function csrfField(csrf: string): string {
  return hidden("authenticity_token", csrf);
}

export function settingsLayout(p: SettingsPage): string {
  const nav = SETTINGS_NAV.map(
    (e) => `<li><a href="${esc(e.href)}"${e.href === p.path ? ' aria-current="page"' : ""}>${esc(e.label)}</a></li>`,
  ).join("");
  const notice = p.notice ? `<p class="notice" role="status">${esc(p.notice)}</p>` : "";
  const errors = p.errors?.length
    ? `<div class="error" role="alert" id="form-errors"><ul>${p.errors.map((e) => `<li>${esc(e)}</li>`).join("")}</ul></div>`
    : "";
  const body = `<header class="settings"><p class="muted">${esc(p.handle)}</p>
<form method="post" action="/auth/sign_out">${csrfField(p.csrf)}<input type="hidden" name="return_to" value="/settings"><button type="submit" class="link">Sign out</button></form></header>
<nav class="settings" aria-label="Settings"><ul>${nav}</ul></nav>
<h1>${esc(p.title)}</h1>${notice}${errors}
${p.body}`;
  return layout({ title: `${p.title} - ${p.instanceTitle}`, body, nonce: p.nonce, style: STYLE });
}
