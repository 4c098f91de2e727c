import { esc, layout } from "../layout.ts";
import { hidden } from "../auth-pages.ts";
import { settingsNav } from "./nav.ts";

// The two-factor settings pages and the code step of signing in. Plain forms, no script.

export const TWO_FACTOR_PATH = "/settings/two_factor_authentication";
const TITLE = "Two-factor authentication";

const STYLE = `.qr svg{width:14rem;height:14rem;display:block}
ol.codes{font-family:ui-monospace,monospace;columns:2}
nav ul{list-style:none;padding:0;margin:0 0 1rem}`;

const errorBlock = (id: string, error?: string) => (error ? `<p class="error" role="alert" id="${id}">${esc(error)}</p>` : "");
const describedBy = (id: string, error?: string) => (error ? ` aria-describedby="${id}"` : "");

function codeInput(id: string, label: string, error?: string, oneTimeCode = true): string {
  const ac = oneTimeCode ? "one-time-code" : "off";
  return `<label for="${id}">${esc(label)}</label>
<input id="${id}" name="code" type="text" inputmode="${oneTimeCode ? "numeric" : "text"}" autocomplete="${ac}" autocapitalize="none" spellcheck="false" maxlength="64"${describedBy(`${id}-error`, error)}>`;
}

function page(nonce: string, body: string): string {
  return layout({ title: TITLE, body: `${settingsNav(TWO_FACTOR_PATH)}<h1>${TITLE}</h1>${body}`, nonce, style: STYLE });
}

export function twoFactorOffPage(o: { nonce: string; csrf: string }): string {
  return page(
    o.nonce,
    `<p>Two-factor authentication is <strong>off</strong>. With it on, signing in needs a code from an authenticator app on your phone as well as your password.</p>
<form method="post" action="${TWO_FACTOR_PATH}/setup">${hidden("authenticity_token", o.csrf)}
<div class="actions"><button type="submit">Set up</button></div></form>`,
  );
}

export function twoFactorSetupPage(o: { nonce: string; csrf: string; qrSvg: string; secret: string; error?: string }): string {
  return page(
    o.nonce,
    `<p>Scan this QR code with an authenticator app (such as 2FAS, Aegis or Google Authenticator), or enter the key below by hand.</p>
<figure class="qr" aria-label="QR code of the set-up key">${o.qrSvg}</figure>
<p>Key: <code id="otp-secret">${esc(o.secret)}</code></p>
${errorBlock("confirm-code-error", o.error)}
<form method="post" action="${TWO_FACTOR_PATH}/confirm">${hidden("authenticity_token", o.csrf)}
${codeInput("confirm-code", "Enter the six-digit code the app shows", o.error)}
<div class="actions"><button type="submit">Enable</button></div></form>`,
  );
}

/** The recovery codes, shown once: after enabling, or after regenerating them (`regenerated`). */
export function recoveryCodesPage(o: { nonce: string; codes: string[]; regenerated?: boolean }): string {
  const items = o.codes.map((c) => `<li>${esc(c)}</li>`).join("");
  const status = o.regenerated ? "New recovery codes were generated. The old ones no longer work." : "Two-factor authentication is now <strong>on</strong>.";
  return page(
    o.nonce,
    `<p role="status">${status}</p>
<h2>Recovery codes</h2>
<p>Keep these somewhere safe. Each one signs you in once if you lose your phone. They are not shown again.</p>
<ol class="codes" id="recovery-codes">${items}</ol>
<p><a href="${TWO_FACTOR_PATH}">Done</a></p>`,
  );
}

/** `error` belongs to the disable form, `recoveryError` to the form that regenerates the recovery codes. */
export function twoFactorOnPage(o: { nonce: string; csrf: string; unusedRecoveryCodes: number; error?: string; recoveryError?: string }): string {
  return page(
    o.nonce,
    `<p>Two-factor authentication is <strong>on</strong>. Recovery codes left: <strong id="recovery-left">${o.unusedRecoveryCodes}</strong>.</p>
<h2>Recovery codes</h2>
<p class="muted">New codes replace the ones you have, which then stop working. Confirm with your password or with a current code.</p>
${errorBlock("recovery-error", o.recoveryError)}
<form method="post" action="${TWO_FACTOR_PATH}/recovery_codes">${hidden("authenticity_token", o.csrf)}
<label for="recovery-password">Password</label>
<input id="recovery-password" name="password" type="password" autocomplete="current-password"${describedBy("recovery-error", o.recoveryError)}>
${codeInput("recovery-code", "Or a two-factor or recovery code", undefined)}
<div class="actions"><button type="submit" class="secondary">Generate new recovery codes</button></div></form>
<h2>Turn it off</h2>
${errorBlock("disable-error", o.error)}
<form method="post" action="${TWO_FACTOR_PATH}/disable">${hidden("authenticity_token", o.csrf)}
<p class="muted">Confirm with your password or with a current code.</p>
<label for="disable-password">Password</label>
<input id="disable-password" name="password" type="password" autocomplete="current-password"${describedBy("disable-error", o.error)}>
${codeInput("disable-code", "Or a two-factor or recovery code", undefined)}
<div class="actions"><button type="submit" class="secondary">Disable</button></div></form>`,
  );
}

/** The code step of signing in (after a right password). */
export function twoFactorSignInPage(o: { nonce: string; instanceTitle: string; csrf: string; returnTo: string | null; error?: string }): string {
  const body = `<h1>Two-factor authentication</h1>${errorBlock("otp-error", o.error)}
<form method="post" action="/auth/sign_in/two_factor">
${hidden("authenticity_token", o.csrf)}${o.returnTo ? hidden("return_to", o.returnTo) : ""}
${codeInput("otp", "Enter the code from your authenticator app, or a recovery code", o.error)}
<div class="actions"><button type="submit">Sign in</button></div>
</form>
<p class="muted"><a href="/auth/sign_in">Start over</a></p>`;
  return layout({ title: `Two-factor authentication - ${o.instanceTitle}`, body, nonce: o.nonce });
}
