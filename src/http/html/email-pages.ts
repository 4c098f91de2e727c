import { hidden } from "./auth-pages.ts";
import { esc, layout } from "./layout.ts";

// The pages behind the mailed links (confirmation, password reset) and an invite link, in
// the small layout of the sign-in page.

const errorList = (errors: string[]) =>
  errors.length ? `<div class="error" role="alert" id="form-error">${errors.map((e) => `<p>${esc(e)}</p>`).join("")}</div>` : "";

export function noticePage(o: { nonce: string; instanceTitle: string; title: string; message: string; link?: { href: string; label: string } }): string {
  const link = o.link ? `<div class="actions"><a href="${esc(o.link.href)}">${esc(o.link.label)}</a></div>` : "";
  const body = `<h1>${esc(o.title)}</h1><p role="status">${esc(o.message)}</p>${link}`;
  return layout({ title: `${o.title} - ${o.instanceTitle}`, body, nonce: o.nonce });
}

/** Asks for the address to mail a reset link to. */
export function passwordRequestPage(o: { nonce: string; instanceTitle: string; csrf: string; errors?: string[]; email?: string }): string {
  const errors = o.errors ?? [];
  const described = errors.length ? ` aria-describedby="form-error"` : "";
  const body = `<h1>Reset your password</h1>${errorList(errors)}
<form method="post" action="/auth/password">
${hidden("authenticity_token", o.csrf)}
<label for="email">E-mail address</label>
<input id="email" name="email" type="email" autocomplete="email" required value="${esc(o.email ?? "")}"${described}>
<div class="actions"><button type="submit">Send the reset link</button></div>
</form>
<p class="muted"><a href="/auth/sign_in">Sign in</a></p>`;
  return layout({ title: `Reset your password - ${o.instanceTitle}`, body, nonce: o.nonce });
}

/** The form the mailed link opens: a new password, twice. */
export function passwordEditPage(o: { nonce: string; instanceTitle: string; csrf: string; token: string; errors?: string[] }): string {
  const errors = o.errors ?? [];
  const described = errors.length ? ` aria-describedby="form-error"` : "";
  const body = `<h1>Choose a new password</h1>${errorList(errors)}
<form method="post" action="/auth/password">
${hidden("authenticity_token", o.csrf)}${hidden("reset_password_token", o.token)}
<label for="password">New password</label>
<input id="password" name="password" type="password" autocomplete="new-password" minlength="8" maxlength="72" required${described}>
<label for="password_confirmation">Confirm the new password</label>
<input id="password_confirmation" name="password_confirmation" type="password" autocomplete="new-password" required>
<div class="actions"><button type="submit">Change my password</button></div>
</form>`;
  return layout({ title: `Choose a new password - ${o.instanceTitle}`, body, nonce: o.nonce });
}
