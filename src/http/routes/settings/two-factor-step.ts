// The hand-over from the password step of signing in to the code step (routes in
// ./two-factor.ts), kept apart so the sign-in routes need not import the settings routes.
import type { H3Event } from "h3";
import type { App } from "../../../app.ts";
import { SESSION_COOKIE, clearCookie, sessionCookieValue, setCookie } from "../../cookies.ts";
import { redirectTo } from "../../html/layout.ts";
import { signOut } from "../../../services/web-sessions.ts";

/** The cookie holding a half-finished sign-in (password right, code owed). */
export const CHALLENGE_COOKIE = "roost_2fa";
const CHALLENGE_MAX_AGE_S = 600;

/** Sends the browser to the code step; called when the password was right and 2FA is on. */
export function twoFactorStep(app: App, event: H3Event, challenge: string, returnTo: string | null): Response {
  const to = returnTo ? `/auth/sign_in/two_factor?return_to=${encodeURIComponent(returnTo)}` : "/auth/sign_in/two_factor";
  // Signing in anew ends whatever session the browser had (as a password-only sign-in does).
  signOut(app, sessionCookieValue(event));
  return redirectTo(event, to, [setCookie(app, CHALLENGE_COOKIE, challenge, CHALLENGE_MAX_AGE_S), clearCookie(app, SESSION_COOKIE)]);
}
