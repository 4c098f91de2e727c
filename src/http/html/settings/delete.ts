import { hidden } from "../auth-pages.ts";
import { esc, layout } from "../layout.ts";
import { settingsNav } from "./nav.ts";

// Mastodon's /settings/delete: deleting one's own account, confirmed with the password.

export function deleteAccountPage(o: { nonce: string; instanceTitle: string; csrf: string; handle: string; error?: string }): string {
  const error = o.error ? `<p class="error" role="alert" id="delete-error">${esc(o.error)}</p>` : "";
  const describedBy = o.error ? ` aria-describedby="delete-error"` : "";
  const body = `${settingsNav("/settings/delete")}<h1>Delete account</h1><p class="muted">Signed in as ${esc(o.handle)}</p>${error}
<p>Your posts, media and profile are removed for good, here and, as far as they listen, on the servers that know you.
The username ${esc(o.handle)} cannot be used again. This cannot be undone.</p>
<form method="post" action="/settings/delete">${hidden("authenticity_token", o.csrf)}
<label for="delete_password">Current password</label>
<input id="delete_password" name="password" type="password" autocomplete="current-password" required${describedBy}>
<div class="actions"><button type="submit">Delete account</button></div></form>`;
  return layout({ title: `Delete account - ${o.instanceTitle}`, body, nonce: o.nonce });
}
