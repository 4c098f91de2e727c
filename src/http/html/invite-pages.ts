import { hidden } from "./auth-pages.ts";
import { esc, layout } from "./layout.ts";

// Invite pages: where an invite link leads in a browser, and the signed-in user's own invites
// (Mastodon's /invites: a form and a table, in the small layout of the sign-in page).

/** Where an invite link leads in a browser: the code, and how to use it. */
export function invitePage(o: { nonce: string; instanceTitle: string; domain: string; code: string; inviter: string }): string {
  const body = `<h1>You are invited to join ${esc(o.instanceTitle)}</h1>
<p>@${esc(o.inviter)} invited you to <strong>${esc(o.domain)}</strong>.</p>
<p>Sign up in a Mastodon app: choose the server <strong>${esc(o.domain)}</strong> and give the invite code
<code class="code">${esc(o.code)}</code>, or open this link in the app.</p>
<p class="muted">Already have an account? <a href="/auth/sign_in">Sign in</a></p>`;
  return layout({ title: `Invitation - ${o.instanceTitle}`, body, nonce: o.nonce });
}

export interface InviteListRow {
  id: string;
  url: string;
  uses: number;
  max_uses: number | null;
  expires_at: string | null;
  state: string;
}

const USES = [["", "No limit"], ["1", "1 use"], ["5", "5 uses"], ["10", "10 uses"], ["25", "25 uses"], ["50", "50 uses"], ["100", "100 uses"]];
const EXPIRES = [["", "Never"], ["1800", "30 minutes"], ["3600", "1 hour"], ["21600", "6 hours"], ["43200", "12 hours"], ["86400", "1 day"], ["604800", "1 week"]];
const select = (name: string, id: string, options: string[][]) =>
  `<select id="${id}" name="${name}">${options.map(([v, label]) => `<option value="${esc(v)}">${esc(label)}</option>`).join("")}</select>`;

export function myInvitesPage(o: { nonce: string; instanceTitle: string; csrf: string; handle: string; invites: InviteListRow[]; canCreate: boolean; error?: string }): string {
  const error = o.error ? `<p class="error" role="alert">${esc(o.error)}</p>` : "";
  const form = o.canCreate
    ? `<form method="post" action="/invites">${hidden("authenticity_token", o.csrf)}
<label for="max_uses">Max number of uses</label>${select("invite[max_uses]", "max_uses", USES)}
<label for="expires_in">Expire after</label>${select("invite[expires_in]", "expires_in", EXPIRES)}
<label><input type="checkbox" name="invite[autofollow]" value="1"> Ask invitees to follow you</label>
<label for="comment">Comment (only you see it)</label><input id="comment" name="invite[comment]" type="text" maxlength="420">
<div class="actions"><button type="submit">Generate invite link</button></div></form>`
    : `<p class="muted">Creating invites is not open to your role at the moment.</p>`;
  const rows = o.invites
    .map(
      (i) => `<tr><td><code class="code">${esc(i.url)}</code></td><td>${i.uses}${i.max_uses === null ? "" : ` / ${i.max_uses}`}</td><td>${esc(i.state === "available" ? (i.expires_at ?? "never") : i.state.replace("_", " "))}</td><td>${
        i.state === "available" ? `<form method="post" action="/invites/${esc(i.id)}/expire">${hidden("authenticity_token", o.csrf)}<button type="submit" class="link">Expire</button></form>` : ""
      }</td></tr>`,
    )
    .join("");
  const table = o.invites.length
    ? `<table><thead><tr><th>Link</th><th>Uses</th><th>Expires</th><th></th></tr></thead><tbody>${rows}</tbody></table>`
    : `<p class="muted">No invites yet.</p>`;
  const body = `<h1>Invite people</h1><p class="muted">Signed in as ${esc(o.handle)}</p>${error}${form}<h2>Your invites</h2>${table}`;
  return layout({ title: `Invite people - ${o.instanceTitle}`, body, nonce: o.nonce });
}
