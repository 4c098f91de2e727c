// Settings → Account (issue 16 part 1): password change (Mastodon's Auth::RegistrationsController#update),
// e-mail change and the account deletion page's shell.
import type { H3Event } from "h3";
import type { App } from "../../../app.ts";
import type { Router } from "../../router.ts";
import { pendingEmail, requestEmailChange } from "../../../services/email-change.ts";
import { changePassword } from "../../../services/password-change.ts";
import { redirectTo } from "../../html/layout.ts";
import { accountBody } from "../../html/settings/account-pages.ts";
import { type SettingsRequest, noticeOf, renderSettings, settingsBrowser, settingsPost } from "./browser.ts";

const ACCOUNT = "/settings/account";
const NOTICES = {
  password: "Your password was changed. Other sessions were signed out.",
  email: "A confirmation link was mailed to the new address; the change takes effect when you follow it.",
};

function showAccount(app: App, event: H3Event, req: SettingsRequest, errors?: string[]): Response {
  const u = req.browser.user;
  const body = accountBody(req.csrf, { email: u.email, pendingEmail: pendingEmail(app, u) });
  return renderSettings(app, event, req, { path: ACCOUNT, title: "Account", body, errors, notice: errors ? undefined : noticeOf(event, NOTICES) }, errors ? 422 : 200);
}

export function registerSettingsAccountRoutes(app: App, r: Router): void {
  r.get(ACCOUNT, (event) => {
    const req = settingsBrowser(app, event, ACCOUNT);
    return req instanceof Response ? req : showAccount(app, event, req);
  });

  r.post(`${ACCOUNT}/password`, async (event) => {
    const got = await settingsPost(app, event, ACCOUNT);
    if (got instanceof Response) return got;
    const { p, req } = got;
    const result = await changePassword(app, req.browser.user, req.browser.session, {
      currentPassword: p.str("current_password") ?? "",
      password: p.str("password") ?? "",
      confirmation: p.str("password_confirmation") ?? "",
    });
    return result.ok ? redirectTo(event, `${ACCOUNT}?notice=password`) : showAccount(app, event, req, result.errors);
  });

  r.post(`${ACCOUNT}/email`, async (event) => {
    const got = await settingsPost(app, event, ACCOUNT);
    if (got instanceof Response) return got;
    const { p, req } = got;
    const result = await requestEmailChange(app, req.browser.user, req.browser.account, {
      email: p.str("email") ?? "",
      currentPassword: p.str("current_password") ?? "",
    });
    return result.ok ? redirectTo(event, `${ACCOUNT}?notice=email`) : showAccount(app, event, req, result.errors);
  });
}
