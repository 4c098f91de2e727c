import type { H3Event } from "h3";
import type { App } from "../app.ts";
import { csrfToken, newBrowserSecret, verifyCsrfToken } from "../lib/csrf.ts";

export const SESSION_COOKIE = "roost_session";
export const CSRF_COOKIE = "roost_csrf";
const YEAR = 365 * 86_400;

/** The request's cookies; the first occurrence of a name wins. */
export function readCookies(event: H3Event): Record<string, string> {
  const out: Record<string, string> = Object.create(null);
  const header = event.req.headers.get("cookie");
  if (!header) return out;
  for (const part of header.split(";")) {
    const i = part.indexOf("=");
    if (i < 1) continue;
    const name = part.slice(0, i).trim();
    if (name in out) continue;
    let value = part.slice(i + 1).trim();
    if (value.startsWith('"') && value.endsWith('"') && value.length >= 2) value = value.slice(1, -1);
    try {
      out[name] = decodeURIComponent(value);
    } catch {
      out[name] = value;
    }
  }
  return out;
}

/**
 * A Set-Cookie value. Always HttpOnly and SameSite=Lax (top-level navigations from client
 * apps must carry the session to /oauth/authorize; cross-site POSTs must not), Secure on https.
 */
export function setCookie(app: App, name: string, value: string, maxAgeSeconds = YEAR): string {
  const secure = app.config.protocol === "https" ? "; Secure" : "";
  return `${name}=${encodeURIComponent(value)}; Path=/; Max-Age=${maxAgeSeconds}; HttpOnly; SameSite=Lax${secure}`;
}

export function clearCookie(app: App, name: string): string {
  return setCookie(app, name, "", 0);
}

export function sessionCookieValue(event: H3Event): string | undefined {
  return readCookies(event)[SESSION_COOKIE];
}

/** The CSRF token for this browser's forms, with the Set-Cookie to send when the browser had none. */
export function browserCsrf(app: App, event: H3Event): { token: string; setCookie?: string } {
  const existing = readCookies(event)[CSRF_COOKIE];
  if (existing && existing.length <= 200) return { token: csrfToken(app.config.secret, existing) };
  const secret = newBrowserSecret();
  return { token: csrfToken(app.config.secret, secret), setCookie: setCookie(app, CSRF_COOKIE, secret) };
}

export function csrfValid(app: App, event: H3Event, submitted: string | undefined): boolean {
  return verifyCsrfToken(app.config.secret, readCookies(event)[CSRF_COOKIE], submitted);
}
