// Mastodon's /settings/delete (Settings::DeletesController): a user deletes their own account,
// confirmed with the password; no REST API exists for it. The data goes in batches by a job.
import type { App } from "../../../app.ts";
import { deleteOwnAccount } from "../../../admin/self-deletion.ts";
import { ApiError } from "../../../errors.ts";
import { currentSession, type BrowserSession, signOut } from "../../../services/web-sessions.ts";
import { browserCsrf, clearCookie, csrfValid, SESSION_COOKIE, sessionCookieValue } from "../../cookies.ts";
import { htmlPage, messagePage, newNonce, redirectTo } from "../../html/layout.ts";
import { deleteAccountPage } from "../../html/settings/delete.ts";
import { readAppParams } from "../../params.ts";
import type { Router } from "../../router.ts";
import { invalidCsrfPage, signInLocation } from "../oauth/sessions.ts";
import type { H3Event } from "h3";

export function registerSettingsDeleteRoutes(app: App, r: Router): void {
  const page = (event: H3Event, b: BrowserSession, status: number, error?: string) => {
    const csrf = browserCsrf(app, event);
    const nonce = newNonce();
    const html = deleteAccountPage({ nonce, instanceTitle: app.config.title, csrf: csrf.token, handle: `@${b.account.username}@${app.config.domain}`, error });
    return htmlPage(event, status, html, nonce, csrf.setCookie ? [csrf.setCookie] : []);
  };

  r.get("/settings/delete", (event) => {
    const b = currentSession(app, sessionCookieValue(event));
    return b ? page(event, b, 200) : redirectTo(event, signInLocation("/settings/delete"));
  });

  r.post("/settings/delete", async (event) => {
    const p = await readAppParams(app, event);
    if (!csrfValid(app, event, p.str("authenticity_token"))) return invalidCsrfPage(event);
    const b = currentSession(app, sessionCookieValue(event));
    if (!b) return redirectTo(event, signInLocation("/settings/delete"));
    try {
      await deleteOwnAccount(app, b.user, b.account, p.str("password") ?? "");
    } catch (e) {
      if (e instanceof ApiError && e.status < 500) return page(event, b, e.status, e.error);
      throw e;
    }
    signOut(app, sessionCookieValue(event));
    const res = messagePage(event, 200, "Account deleted", "Your account is being deleted. This browser is signed out.");
    res.headers.append("set-cookie", clearCookie(app, SESSION_COOKIE));
    return res;
  });
}
