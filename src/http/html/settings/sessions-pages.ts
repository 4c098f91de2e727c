import { esc } from "../layout.ts";
import { csrfField } from "./shell.ts";

// Settings → Sessions and Settings → Authorized apps (bodies for the settings shell).

export interface SessionRow {
  id: string;
  device: string;
  ip: string | null;
  lastActiveAt: number;
  current: boolean;
}

const time = (ms: number) => `<time datetime="${esc(new Date(ms).toISOString())}">${esc(new Date(ms).toISOString().slice(0, 16).replace("T", " "))} UTC</time>`;

export function sessionsBody(csrf: string, sessions: SessionRow[]): string {
  const rows = sessions
    .map(
      (s) => `<tr id="session-${esc(s.id)}"><td class="device">${esc(s.device)}</td><td class="ip">${esc(s.ip ?? "unknown")}</td><td>${time(s.lastActiveAt)}</td><td>${
        s.current
          ? "<strong>This session</strong>"
          : `<form method="post" action="/settings/sessions/${esc(s.id)}/revoke">${csrfField(csrf)}<button type="submit" class="secondary" aria-label="Revoke the session of ${esc(s.device)}, ${esc(s.ip ?? "unknown address")}">Revoke</button></form>`
      }</td></tr>`,
    )
    .join("");
  const others = sessions.some((s) => !s.current)
    ? `<form method="post" action="/settings/sessions/revoke_others">${csrfField(csrf)}<div class="actions"><button type="submit">Sign out all other sessions</button></div></form>`
    : "";
  return `<p class="muted">Browsers signed in to your account. Revoking a session signs that browser out and invalidates its token.</p>
<table class="list" id="sessions"><thead><tr><th scope="col">Browser</th><th scope="col">IP address</th><th scope="col">Last activity</th><th scope="col"><span class="muted">Action</span></th></tr></thead><tbody>${rows}</tbody></table>${others}`;
}

export interface AppRow {
  id: string;
  name: string;
  website: string | null;
  scopes: string[];
  authorizedAt: number;
  lastUsedAt: number | null;
}

export function applicationsBody(csrf: string, apps: AppRow[]): string {
  if (!apps.length) return `<p id="no-apps">You have not authorized any application.</p>`;
  const items = apps
    .map((a) => {
      const name = a.website && /^https?:\/\//i.test(a.website) ? `<a href="${esc(a.website)}" rel="noopener noreferrer nofollow">${esc(a.name)}</a>` : esc(a.name);
      return `<tr id="app-${esc(a.id)}"><td class="name">${name}</td><td class="scopes"><code>${esc(a.scopes.join(" "))}</code></td><td>${time(a.authorizedAt)}</td><td>${a.lastUsedAt === null ? "never" : time(a.lastUsedAt)}</td><td><form method="post" action="/settings/applications/${esc(a.id)}/revoke">${csrfField(csrf)}<button type="submit" class="secondary" aria-label="Revoke access of ${esc(a.name)}">Revoke</button></form></td></tr>`;
    })
    .join("");
  return `<p class="muted">Applications you allowed to use your account. Revoking one invalidates every token it holds.</p>
<table class="list" id="applications"><thead><tr><th scope="col">Application</th><th scope="col">Permissions</th><th scope="col">Authorized</th><th scope="col">Last used</th><th scope="col"><span class="muted">Action</span></th></tr></thead><tbody>${items}</tbody></table>`;
}
