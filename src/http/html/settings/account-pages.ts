import { esc } from "../layout.ts";
import { csrfField } from "./shell.ts";

// Settings → Account: password and e-mail change, and the way to the account deletion page.

export function accountBody(csrf: string, o: { email: string; pendingEmail: string | null }): string {
  const pending = o.pendingEmail
    ? `<p class="muted" id="pending-email">Waiting for confirmation of <strong>${esc(o.pendingEmail)}</strong>: follow the link mailed there.</p>`
    : "";
  return `<h2>Change e-mail address</h2>
<p>Current address: <strong id="current-email">${esc(o.email)}</strong></p>${pending}
<form method="post" action="/settings/account/email">${csrfField(csrf)}
<label for="email">New e-mail address</label>
<input type="email" id="email" name="email" autocomplete="email" maxlength="320" required>
<label for="email_current_password">Current password</label>
<input type="password" id="email_current_password" name="current_password" autocomplete="current-password" required>
<div class="actions"><button type="submit">Change e-mail address</button></div>
</form>
<h2>Change password</h2>
<p class="muted">Changing your password signs out every other browser session.</p>
<form method="post" action="/settings/account/password">${csrfField(csrf)}
<label for="current_password">Current password</label>
<input type="password" id="current_password" name="current_password" autocomplete="current-password" required>
<label for="password">New password</label>
<input type="password" id="password" name="password" autocomplete="new-password" minlength="8" maxlength="72" required>
<label for="password_confirmation">Confirm new password</label>
<input type="password" id="password_confirmation" name="password_confirmation" autocomplete="new-password" minlength="8" maxlength="72" required>
<div class="actions"><button type="submit">Change password</button></div>
</form>
<h2>Delete account</h2>
<p><a href="/settings/delete">Delete your account</a></p>`;
}

