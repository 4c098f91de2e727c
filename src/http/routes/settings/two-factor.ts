// Two-factor authentication (issue 16 part 3): the settings pages (Mastodon's
// /settings/otp_authentication and two_factor_authentication/*) and the code step of signing in
// (Mastodon asks for user[otp_attempt] after a right password, before any session exists).
import type { H3Event } from "h3";
import type { App } from "../../../app.ts";
import type { Router } from "../../router.ts";
import { clientIp } from "../../auth.ts";
import { readAppParams } from "../../params.ts";
import { SESSION_COOKIE, browserCsrf, clearCookie, csrfValid, readCookies, sessionCookieValue, setCookie } from "../../cookies.ts";
import { htmlPage, messagePage, newNonce, redirectTo } from "../../html/layout.ts";
import {
  TWO_FACTOR_PATH,
  recoveryCodesPage,
  twoFactorOffPage,
  twoFactorOnPage,
  twoFactorSetupPage,
  twoFactorSignInPage,
} from "../../html/settings/two-factor.ts";
import { currentSession, type BrowserSession } from "../../../services/web-sessions.ts";
import {
  beginTwoFactorSetup,
  challengeOpen,
  completeTwoFactorSignIn,
  confirmTwoFactorSetup,
  disableTwoFactor,
  pendingTwoFactorSetup,
  regenerateRecoveryCodes,
  twoFactorState,
} from "../../../services/two-factor.ts";
import { createThrottle } from "../../../lib/rate-limit.ts";
import { invalidCsrfPage, safeReturnTo, signInLocation } from "../oauth/sessions.ts";
import { CHALLENGE_COOKIE } from "./two-factor-step.ts";

const WRONG_CODE = "Invalid two-factor code.";
const EXPIRED = "Your sign-in has expired. Please sign in again.";

function tooMany(event: H3Event, retryMs: number): Response {
  const res = messagePage(event, 429, "Too many requests", "Too many wrong codes. Please try again later.");
  res.headers.set("retry-after", String(Math.max(1, Math.ceil(retryMs / 1000))));
  return res;
}

export function registerTwoFactorRoutes(app: App, r: Router): void {
  // Per address on top of the per-account count kept with the secret (services/two-factor.ts).
  const perIp = createThrottle(25, 5 * 60_000);

  const signedIn = (event: H3Event): BrowserSession | null => currentSession(app, sessionCookieValue(event));
  const csrfOf = (event: H3Event) => browserCsrf(app, event);
  const cookiesOf = (c: { setCookie?: string }) => (c.setCookie ? [c.setCookie] : []);

  /** Renders the settings page for the user's current state. */
  async function settingsPage(event: H3Event, b: BrowserSession, status = 200, error?: string, recoveryError?: string): Promise<Response> {
    const csrf = csrfOf(event);
    const nonce = newNonce();
    const state = twoFactorState(app, b.user.id);
    let html: string;
    if (state.enabled) html = twoFactorOnPage({ nonce, csrf: csrf.token, unusedRecoveryCodes: state.unusedRecoveryCodes, error, recoveryError });
    else {
      const pending = error ? await pendingTwoFactorSetup(app, b.user, b.account.username) : null;
      html = pending ? twoFactorSetupPage({ nonce, csrf: csrf.token, qrSvg: pending.qrSvg, secret: pending.secret, error }) : twoFactorOffPage({ nonce, csrf: csrf.token });
    }
    return htmlPage(event, status, html, nonce, cookiesOf(csrf));
  }

  r.get(TWO_FACTOR_PATH, async (event) => {
    const b = signedIn(event);
    if (!b) return redirectTo(event, signInLocation(TWO_FACTOR_PATH));
    return settingsPage(event, b);
  });

  r.post(`${TWO_FACTOR_PATH}/setup`, async (event) => {
    const p = await readAppParams(app, event);
    if (!csrfValid(app, event, p.str("authenticity_token"))) return invalidCsrfPage(event);
    const b = signedIn(event);
    if (!b) return redirectTo(event, signInLocation(TWO_FACTOR_PATH));
    const setup = await beginTwoFactorSetup(app, b.user, b.account.username);
    if (!setup) return redirectTo(event, TWO_FACTOR_PATH);
    const csrf = csrfOf(event);
    const nonce = newNonce();
    return htmlPage(event, 200, twoFactorSetupPage({ nonce, csrf: csrf.token, qrSvg: setup.qrSvg, secret: setup.secret }), nonce, cookiesOf(csrf));
  });

  r.post(`${TWO_FACTOR_PATH}/confirm`, async (event) => {
    const p = await readAppParams(app, event);
    if (!csrfValid(app, event, p.str("authenticity_token"))) return invalidCsrfPage(event);
    const b = signedIn(event);
    if (!b) return redirectTo(event, signInLocation(TWO_FACTOR_PATH));
    if (twoFactorState(app, b.user.id).enabled) return redirectTo(event, TWO_FACTOR_PATH);
    const codes = confirmTwoFactorSetup(app, b.user, p.str("code") ?? "");
    if (!codes) return settingsPage(event, b, 422, WRONG_CODE);
    const nonce = newNonce();
    return htmlPage(event, 200, recoveryCodesPage({ nonce, codes }), nonce);
  });

  r.post(`${TWO_FACTOR_PATH}/disable`, async (event) => {
    const p = await readAppParams(app, event);
    if (!csrfValid(app, event, p.str("authenticity_token"))) return invalidCsrfPage(event);
    const b = signedIn(event);
    if (!b) return redirectTo(event, signInLocation(TWO_FACTOR_PATH));
    const wait = perIp.hit(clientIp(event) ?? "unknown", app.now());
    if (wait > 0) return tooMany(event, wait);
    const res = await disableTwoFactor(app, b.user, { password: p.str("password") || undefined, code: p.str("code") || undefined });
    if (!res.ok && res.reason === "throttled") return tooMany(event, res.retryMs);
    if (!res.ok) return settingsPage(event, b, 422, "Invalid password or two-factor code.");
    return redirectTo(event, TWO_FACTOR_PATH);
  });

  // Mastodon's POST /settings/two_factor_authentication/recovery_codes.
  r.post(`${TWO_FACTOR_PATH}/recovery_codes`, async (event) => {
    const p = await readAppParams(app, event);
    if (!csrfValid(app, event, p.str("authenticity_token"))) return invalidCsrfPage(event);
    const b = signedIn(event);
    if (!b) return redirectTo(event, signInLocation(TWO_FACTOR_PATH));
    const wait = perIp.hit(clientIp(event) ?? "unknown", app.now());
    if (wait > 0) return tooMany(event, wait);
    const res = await regenerateRecoveryCodes(app, b.user, b.account.username, { password: p.str("password") || undefined, code: p.str("code") || undefined });
    if (!res.ok && res.reason === "off") return redirectTo(event, TWO_FACTOR_PATH);
    if (!res.ok && res.reason === "throttled") return tooMany(event, res.retryMs);
    if (!res.ok) return settingsPage(event, b, 422, undefined, "Invalid password or two-factor code.");
    const nonce = newNonce();
    return htmlPage(event, 200, recoveryCodesPage({ nonce, codes: res.codes, regenerated: true }), nonce);
  });

  r.get("/auth/sign_in/two_factor", async (event) => {
    const p = await readAppParams(app, event);
    const returnTo = safeReturnTo(p.str("return_to"));
    if (!challengeOpen(app, readCookies(event)[CHALLENGE_COOKIE])) return redirectTo(event, signInLocation(returnTo));
    const csrf = csrfOf(event);
    const nonce = newNonce();
    return htmlPage(event, 200, twoFactorSignInPage({ nonce, instanceTitle: app.config.title, csrf: csrf.token, returnTo }), nonce, cookiesOf(csrf));
  });

  r.post("/auth/sign_in/two_factor", async (event) => {
    const p = await readAppParams(app, event);
    if (!csrfValid(app, event, p.str("authenticity_token"))) return invalidCsrfPage(event);
    const returnTo = safeReturnTo(p.str("return_to"));
    const wait = perIp.hit(clientIp(event) ?? "unknown", app.now());
    if (wait > 0) return tooMany(event, wait);
    const res = completeTwoFactorSignIn(app, readCookies(event)[CHALLENGE_COOKIE], p.str("code") ?? "");
    if (res.ok) {
      return redirectTo(event, returnTo ?? "/auth/sign_in", [setCookie(app, SESSION_COOKIE, res.sessionId), clearCookie(app, CHALLENGE_COOKIE)]);
    }
    if (res.reason === "throttled") return tooMany(event, res.retryMs);
    if (res.reason === "expired" || res.reason === "refused") {
      return messagePage(event, 422, "Two-factor authentication", EXPIRED);
    }
    const csrf = csrfOf(event);
    const nonce = newNonce();
    return htmlPage(event, 422, twoFactorSignInPage({ nonce, instanceTitle: app.config.title, csrf: csrf.token, returnTo, error: WRONG_CODE }), nonce);
  });
}
