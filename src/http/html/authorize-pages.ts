import { hidden, signOutForm } from "./auth-pages.ts";
import { esc, layout } from "./layout.ts";
import type { PermissionGroup } from "./permissions.ts";

/** Doorkeeper's error page for /oauth/authorize (never a redirect at this stage). */
export function oauthErrorPage(o: { nonce: string; error: string; description: string }): string {
  const body = `<h1>An error has occurred</h1>
<p role="alert">${esc(o.description)}</p>
<p class="muted">Error code: <code>${esc(o.error)}</code></p>`;
  return layout({ title: "An error has occurred", body, nonce: o.nonce });
}

export function consentPage(o: {
  nonce: string;
  appName: string;
  appWebsite: string | null;
  handle: string;
  permissions: PermissionGroup[];
  fields: Record<string, string>;
  csrf: string;
  /** The authorize URL to come back to after switching account. */
  returnTo: string;
}): string {
  const fields = Object.entries(o.fields).map(([k, v]) => hidden(k, v)).join("") + hidden("authenticity_token", o.csrf);
  const website = o.appWebsite && /^https?:\/\//i.test(o.appWebsite)
    ? ` (<a href="${esc(o.appWebsite)}" rel="noopener noreferrer nofollow">${esc(o.appWebsite)}</a>)`
    : "";
  const perms = o.permissions
    .map((p) => `<li><strong>${esc(p.label)}</strong><br><span class="muted">${esc(p.access)}</span></li>`)
    .join("");
  const body = `<h1>Authorization required</h1>
<p><strong>${esc(o.appName)}</strong>${website} would like permission to access your account. It is a third-party application. <strong>If you do not trust it, then you should not authorize it.</strong></p>
<p class="muted">You are signed in as <strong>${esc(o.handle)}</strong>.</p>
${signOutForm(o.csrf, "Not you? Use a different account", o.returnTo, "link")}
<h2>Review permissions</h2>
<ul class="perms">${perms}</ul>
<div class="actions">
<form method="post" action="/oauth/authorize">${fields}<button type="submit">Authorize</button></form>
<form method="post" action="/oauth/authorize">${fields}${hidden("deny", "1")}<button type="submit" class="secondary">Deny</button></form>
</div>`;
  return layout({ title: "Authorization required", body, nonce: o.nonce });
}

/** The out-of-band page: the code in a read-only box with a Copy button. */
export function nativeCodePage(o: { nonce: string; code: string }): string {
  const title = "Copy this authorization code and paste it to the application.";
  const body = `<h1>${esc(title)}</h1>
<label for="code">Authorization code</label>
<input id="code" class="code" type="text" readonly value="${esc(o.code)}">
<div class="actions"><button type="button" id="copy">Copy</button></div>`;
  const script =
    "document.getElementById('copy').addEventListener('click',function(){var i=document.getElementById('code');i.select();" +
    "if(navigator.clipboard){navigator.clipboard.writeText(i.value)}else{document.execCommand('copy')}});";
  return layout({ title, body, nonce: o.nonce, script });
}

/** response_mode=form_post: the browser posts the result to the client. */
export function formPostPage(o: { nonce: string; action: string; fields: Record<string, string> }): string {
  const fields = Object.entries(o.fields).map(([k, v]) => hidden(k, v)).join("");
  const body = `<h1>Returning to the application…</h1>
<form method="post" action="${esc(o.action)}" id="result">${fields}<button type="submit">Continue</button></form>`;
  return layout({ title: "Returning to the application", body, nonce: o.nonce, script: "document.getElementById('result').submit();" });
}
