// Browser sign-in for the OAuth consent flow (Mastodon's /auth/sign_in, Devise sessions and
// session activations): https://docs.joinmastodon.org/spec/oauth/
import type { H3Event } from "h3";
import type { App } from "../../../app.ts";
import type { Router } from "../../router.ts";
import { clientIp } from "../../auth.ts";
import { readAppParams } from "../../params.ts";
import { SESSION_COOKIE, browserCsrf, clearCookie, csrfValid, sessionCookieValue, setCookie } from "../../cookies.ts";
import { htmlPage, messagePage, newNonce, redirectTo } from "../../html/layout.ts";
import { signInPage, signedInPage } from "../../html/auth-pages.ts";
import { SIGN_IN_ERRORS, currentSession, signIn, signOut } from "../../../services/web-sessions.ts";
import { createThrottle, type Throttle } from "../../../lib/rate-limit.ts";
import { twoFactorStep } from "../settings/two-factor-step.ts";
import { externalSignInButtons } from "../../../services/external-auth/providers.ts";
import { pamSignInAvailable, signInWithPam } from "../../../services/external-auth/pam.ts";

const MAX_RETURN_TO = 8192;

/**
 * Where to go after signing in: only a path on this server (never `//host`, `/\host` or an
 * absolute URL), so the sign-in page cannot be used as an open redirect.
 */
export function safeReturnTo(v: string | undefined): string | null {
  if (!v || v.length > MAX_RETURN_TO || !v.startsWith("/") || v.startsWith("//")) return null;
  if (/[\\\u0000-\u001f\u007f]/.test(v)) return null;
  try {
    const u = new URL(v, "http://local.invalid");
    if (u.origin !== "http://local.invalid") return null;
    return u.pathname + u.search;
  } catch {
    return null;
  }
}

export function signInLocation(returnTo: string | null): string {
  return returnTo ? `/auth/sign_in?return_to=${encodeURIComponent(returnTo)}` : "/auth/sign_in";
}

export function invalidCsrfPage(event: H3Event): Response {
  return messagePage(event, 422, "Invalid authenticity token", "Invalid authenticity token. Please go back, reload the page and try again.");
}

function handleOf(app: App, username: string): string {
  return `@${username}@${app.config.domain}`;
}

// Mastodon's rack-attack throttles on sign-in: 25 attempts per IP per 5 minutes, and 25 per
// login name per hour (password guessing spread over many addresses).
const SIGN_IN_PER_IP = { limit: 25, periodMs: 5 * 60_000 };
const SIGN_IN_PER_LOGIN = { limit: 25, periodMs: 3600_000 };

function tooManyAttempts(event: H3Event, retryMs: number): Response {
  const res = messagePage(event, 429, "Too many requests", "Too many sign-in attempts. Please try again later.");
  res.headers.set("retry-after", String(Math.ceil(retryMs / 1000)));
  return res;
}

export function registerSessionRoutes(app: App, r: Router): void {
  const perIp: Throttle = createThrottle(SIGN_IN_PER_IP.limit, SIGN_IN_PER_IP.periodMs);
  const perLogin: Throttle = createThrottle(SIGN_IN_PER_LOGIN.limit, SIGN_IN_PER_LOGIN.periodMs);

  r.get("/auth/sign_in", async (event) => {
    const p = await readAppParams(app, event);
    const returnTo = safeReturnTo(p.str("return_to"));
    const csrf = browserCsrf(app, event);
    const cookies = csrf.setCookie ? [csrf.setCookie] : [];
    const nonce = newNonce();
    const browser = currentSession(app, sessionCookieValue(event));
    if (browser) {
      if (returnTo) return redirectTo(event, returnTo);
      const html = signedInPage({ nonce, instanceTitle: app.config.title, handle: handleOf(app, browser.account.username), csrf: csrf.token });
      return htmlPage(event, 200, html, nonce, cookies);
    }
    const html = signInPage({ nonce, instanceTitle: app.config.title, csrf: csrf.token, returnTo, providers: externalSignInButtons(app), pam: await pamSignInAvailable(app) });
    return htmlPage(event, 200, html, nonce, cookies);
  });

  r.post("/auth/sign_in", async (event) => {
    const p = await readAppParams(app, event);
    if (!csrfValid(app, event, p.str("authenticity_token"))) return invalidCsrfPage(event);
    const returnTo = safeReturnTo(p.str("return_to"));
    const login = p.str("login") ?? "";
    const now = app.now();
    const wait = Math.max(perIp.hit(clientIp(event) ?? "unknown", now), perLogin.hit(login.trim().toLowerCase().slice(0, 320), now));
    if (wait > 0) return tooManyAttempts(event, wait);
    const input = { login, password: p.str("password") ?? "", userAgent: event.req.headers.get("user-agent"), ip: clientIp(event) };
    let result = await signIn(app, input);
    // Not a local password: PAM, when on, may know the name (services/external-auth/pam.ts).
    if (result.ok === false && result.message === SIGN_IN_ERRORS.invalid) result = (await signInWithPam(app, input)) ?? result;
    if (result.ok === "two_factor") return twoFactorStep(app, event, result.challenge, returnTo);
    if (!result.ok) {
      const nonce = newNonce();
      const csrf = browserCsrf(app, event);
      const html = signInPage({ nonce, instanceTitle: app.config.title, csrf: csrf.token, returnTo, login: login.slice(0, 320), error: result.message, providers: externalSignInButtons(app), pam: await pamSignInAvailable(app) });
      return htmlPage(event, 422, html, nonce);
    }
    // Signing in over an existing session replaces it rather than leaving it orphaned.
    signOut(app, sessionCookieValue(event));
    return redirectTo(event, returnTo ?? "/auth/sign_in", [setCookie(app, SESSION_COOKIE, result.sessionId)]);
  });

  r.post("/auth/sign_out", async (event) => {
    const p = await readAppParams(app, event);
    if (!csrfValid(app, event, p.str("authenticity_token"))) return invalidCsrfPage(event);
    signOut(app, sessionCookieValue(event));
    return redirectTo(event, signInLocation(safeReturnTo(p.str("return_to"))), [clearCookie(app, SESSION_COOKIE)]);
  });
}
