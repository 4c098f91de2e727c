import { hidden } from "../auth-pages.ts";
import { esc, layout } from "../layout.ts";
import { settingsNav } from "./nav.ts";

// Mastodon's /settings/aliases and /settings/migration pages: the old accounts this one may be
// moved from (alsoKnownAs), and the move of this account to another one.

const errorBox = (error?: string) => (error ? `<p class="error" role="alert">${esc(error)}</p>` : "");

export function aliasesPage(o: { nonce: string; instanceTitle: string; csrf: string; handle: string; aliases: { uri: string; acct: string }[]; error?: string }): string {
  const rows = o.aliases
    .map(
      (a) => `<li>${esc(a.acct)} <form method="post" action="/settings/aliases/remove">${hidden("authenticity_token", o.csrf)}${hidden("alias", a.uri)}<button type="submit" class="link">Remove alias</button></form></li>`,
    )
    .join("");
  const body = `${settingsNav("/settings/aliases")}<h1>Account aliases</h1><p class="muted">Signed in as ${esc(o.handle)}</p>${errorBox(o.error)}
<p>To move from another account to this one, first list the other account here. This alone changes nothing and can be undone.</p>
<form method="post" action="/settings/aliases">${hidden("authenticity_token", o.csrf)}
<label for="alias_acct">Handle of the old account</label>
<input id="alias_acct" name="acct" type="text" placeholder="username@domain" autocapitalize="none" spellcheck="false" required maxlength="500">
<div class="actions"><button type="submit">Create alias</button></div></form>
<h2>Your aliases</h2>${rows ? `<ul>${rows}</ul>` : `<p class="muted">No aliases yet.</p>`}`;
  return layout({ title: `Account aliases - ${o.instanceTitle}`, body, nonce: o.nonce });
}

export function migrationPage(o: {
  nonce: string;
  instanceTitle: string;
  csrf: string;
  handle: string;
  movedTo: string | null;
  cooldownUntil: string | null;
  acct?: string;
  error?: string;
}): string {
  const state = o.movedTo
    ? `<p role="status">This account has moved to <strong>${esc(o.movedTo)}</strong>. Its followers were asked to follow that account.</p>`
    : "";
  const form = o.cooldownUntil
    ? `<p class="muted">You can move again after ${esc(o.cooldownUntil)}.</p>`
    : `<form method="post" action="/settings/migration">${hidden("authenticity_token", o.csrf)}
<label for="migration_acct">Handle of the new account</label>
<input id="migration_acct" name="acct" type="text" placeholder="username@domain" autocapitalize="none" spellcheck="false" required maxlength="500" value="${esc(o.acct ?? "")}">
<label for="migration_password">Current password</label>
<input id="migration_password" name="current_password" type="password" autocomplete="current-password" required>
<div class="actions"><button type="submit">Move followers</button></div></form>`;
  const body = `${settingsNav("/settings/migration")}<h1>Move to a different account</h1><p class="muted">Signed in as ${esc(o.handle)}</p>${errorBox(o.error)}${state}
<p>The new account must first list this one as an alias. Your followers are then asked to follow the new account; your posts stay here.
This account is marked as moved and you can move again only after 30 days.</p>${form}`;
  return layout({ title: `Account migration - ${o.instanceTitle}`, body, nonce: o.nonce });
}
