import { esc, layout } from "./layout.ts";

const hidden = (name: string, value: string) => `<input type="hidden" name="${esc(name)}" value="${esc(value)}">`;

export function signInPage(o: {
  nonce: string;
  instanceTitle: string;
  csrf: string;
  returnTo: string | null;
  login?: string;
  error?: string;
  /** External sign-in buttons (CAS, SAML, OIDC), each a form posting to its path. */
  providers?: { label: string; path: string }[];
  /** PAM sign-in is on and working: the same form takes the system account's name and password. */
  pam?: boolean;
}): string {
  const error = o.error ? `<p class="error" role="alert" id="sign-in-error">${esc(o.error)}</p>` : "";
  const describedBy = o.error ? ` aria-describedby="sign-in-error"` : "";
  const body = `<h1>Sign in to ${esc(o.instanceTitle)}</h1>${error}
<form method="post" action="/auth/sign_in">
${hidden("authenticity_token", o.csrf)}${o.returnTo ? hidden("return_to", o.returnTo) : ""}
<label for="login">E-mail address or username</label>
<input id="login" name="login" type="text" autocomplete="username" autocapitalize="none" spellcheck="false" required value="${esc(o.login ?? "")}"${describedBy}>
<label for="password">Password</label>
<input id="password" name="password" type="password" autocomplete="current-password" required>
${o.pam ? `<p class="muted" id="pam-sign-in">You can also sign in with the username and password of your account on this server's system.</p>
` : ""}<div class="actions"><button type="submit">Sign in</button></div>
</form>${externalButtons(o.csrf, o.returnTo, o.providers ?? [])}`;
  return layout({ title: `Sign in - ${o.instanceTitle}`, body, nonce: o.nonce });
}

function externalButtons(csrf: string, returnTo: string | null, providers: { label: string; path: string }[]): string {
  if (providers.length === 0) return "";
  const forms = providers.map(
    (p) => `<form method="post" action="${esc(p.path)}">${hidden("authenticity_token", csrf)}${returnTo ? hidden("return_to", returnTo) : ""}<button type="submit" class="secondary">${esc(p.label)}</button></form>`,
  );
  return `\n<h2>Or sign in with</h2>\n<div class="actions">${forms.join("")}</div>`;
}

/** A sign-out button (a CSRF-protected POST), optionally coming back to `returnTo` after signing in again. */
export function signOutForm(csrf: string, label: string, returnTo: string | null, className = ""): string {
  const cls = className ? ` class="${esc(className)}"` : "";
  return `<form method="post" action="/auth/sign_out">${hidden("authenticity_token", csrf)}${
    returnTo ? hidden("return_to", returnTo) : ""
  }<button type="submit"${cls}>${esc(label)}</button></form>`;
}

export function signedInPage(o: { nonce: string; instanceTitle: string; handle: string; csrf: string }): string {
  const body = `<h1>${esc(o.instanceTitle)}</h1>
<p>You are signed in as <strong>${esc(o.handle)}</strong>.</p>
<div class="actions">${signOutForm(o.csrf, "Sign out", null, "secondary")}</div>`;
  return layout({ title: o.instanceTitle, body, nonce: o.nonce });
}

export { hidden };
