// The pages behind the mailed links (Devise's confirmations and passwords controllers as
// Mastodon mounts them under /auth): confirming an address, asking for a password reset and
// choosing the new password. CSRF-protected forms, throttled per address like sign-in.
import type { H3Event } from "h3";
import type { App } from "../../../app.ts";
import type { Router } from "../../router.ts";
import { clientIp } from "../../auth.ts";
import { readAppParams } from "../../params.ts";
import { browserCsrf, csrfValid } from "../../cookies.ts";
import { htmlPage, messagePage, newNonce } from "../../html/layout.ts";
import { noticePage, passwordEditPage, passwordRequestPage } from "../../html/email-pages.ts";
import { confirmByToken } from "../../../services/email-confirmation.ts";
import { requestPasswordReset, resetPassword, userOfResetToken } from "../../../services/password-reset.ts";
import { createThrottle } from "../../../lib/rate-limit.ts";
import { invalidCsrfPage } from "./sessions.ts";

const SIGN_IN = { href: "/auth/sign_in", label: "Sign in" };

export function registerEmailLinkRoutes(app: App, r: Router): void {
  // Mastodon's rack-attack throttle_email_confirmations/ip and throttle_password_resets/ip:
  // 25 per 5 minutes per address.
  const perIp = createThrottle(25, 5 * 60_000);
  const throttled = (event: H3Event): Response | undefined => {
    const wait = perIp.hit(clientIp(event) ?? "unknown", app.now());
    if (wait <= 0) return undefined;
    const res = messagePage(event, 429, "Too many requests", "Too many attempts. Please try again later.");
    res.headers.set("retry-after", String(Math.ceil(wait / 1000)));
    return res;
  };
  const notice = (event: H3Event, status: number, title: string, message: string, link = SIGN_IN) => {
    const nonce = newNonce();
    return htmlPage(event, status, noticePage({ nonce, instanceTitle: app.config.title, title, message, link }), nonce);
  };

  r.get("/auth/confirmation", async (event) => {
    const limited = throttled(event);
    if (limited) return limited;
    const p = await readAppParams(app, event);
    const done = confirmByToken(app, p.str("confirmation_token"));
    if (!done) return notice(event, 422, "Invalid confirmation link", "This confirmation link is invalid, was used already or has expired. Ask the app you signed up with for a new one.");
    return notice(event, 200, "Your e-mail address is confirmed", `Thank you, @${done.username}. You can now sign in (once a moderator approved the account, where that is required).`);
  });

  const requestForm = (event: H3Event, status: number, errors: string[] = [], email = "") => {
    const csrf = browserCsrf(app, event);
    const nonce = newNonce();
    const html = passwordRequestPage({ nonce, instanceTitle: app.config.title, csrf: csrf.token, errors, email });
    return htmlPage(event, status, html, nonce, csrf.setCookie ? [csrf.setCookie] : []);
  };
  const editForm = (event: H3Event, status: number, token: string, errors: string[] = []) => {
    const csrf = browserCsrf(app, event);
    const nonce = newNonce();
    const html = passwordEditPage({ nonce, instanceTitle: app.config.title, csrf: csrf.token, token, errors });
    return htmlPage(event, status, html, nonce, csrf.setCookie ? [csrf.setCookie] : []);
  };

  r.get("/auth/password/new", (event) => requestForm(event, 200));

  // Mastodon's check_validity_of_reset_password_token: an unusable link goes back to the request form.
  r.get("/auth/password/edit", async (event) => {
    const p = await readAppParams(app, event);
    const token = p.str("reset_password_token") ?? "";
    if (!userOfResetToken(app, token)) return requestForm(event, 422, ["The link to reset your password is invalid or has expired. Ask for a new one."]);
    return editForm(event, 200, token);
  });

  // One path for both forms, as Devise's POST (request) and PUT (update) of /auth/password:
  // the reset form carries reset_password_token.
  r.post("/auth/password", async (event) => {
    const p = await readAppParams(app, event);
    if (!csrfValid(app, event, p.str("authenticity_token"))) return invalidCsrfPage(event);
    const limited = throttled(event);
    if (limited) return limited;
    const token = p.str("reset_password_token");
    if (token === undefined) {
      const email = (p.str("email") ?? "").slice(0, 320);
      if (!email.trim()) return requestForm(event, 422, ["E-mail address can't be blank"]);
      requestPasswordReset(app, email);
      // Devise's paranoid mode: the same answer whether the address is known or not.
      return notice(event, 200, "Check your inbox", "If this address belongs to an account, a link to reset the password is on its way. It works once, within 6 hours.");
    }
    const result = await resetPassword(app, token, p.str("password") ?? "", p.str("password_confirmation") ?? "");
    if (result.ok) return notice(event, 200, "Your password is changed", "Sign in with the new password. Every other session and app was signed out.");
    if (result.invalidToken) return requestForm(event, 422, result.errors);
    return editForm(event, 422, token, result.errors);
  });
}
