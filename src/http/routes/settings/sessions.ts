// Settings → Sessions and Authorized apps (issue 16 part 2), after Mastodon's
// /auth/edit "sessions" list (SessionActivation) and /oauth/authorized_applications.
import { getRouterParam } from "h3";
import type { App } from "../../../app.ts";
import type { Router } from "../../router.ts";
import { describeUserAgent } from "../../../lib/user-agent.ts";
import { authorizedApps, revokeAuthorizedApp } from "../../../services/authorized-apps.ts";
import { listSessions, revokeOtherSessions, revokeSession } from "../../../services/web-sessions.ts";
import { redirectTo } from "../../html/layout.ts";
import { applicationsBody, sessionsBody } from "../../html/settings/sessions-pages.ts";
import { noticeOf, renderSettings, settingsBrowser, settingsPost } from "./browser.ts";

const SESSIONS = "/settings/sessions";
const APPS = "/settings/applications";

const SESSION_NOTICES = { revoked: "The session was revoked.", others: "All other sessions were signed out.", gone: "That session no longer exists." };
const APP_NOTICES = { revoked: "The application's access was revoked.", gone: "That application has no access to revoke." };

export function registerSettingsSessionRoutes(app: App, r: Router): void {
  r.get(SESSIONS, (event) => {
    const req = settingsBrowser(app, event, SESSIONS);
    if (req instanceof Response) return req;
    const rows = listSessions(app, req.browser.user).map((s) => ({
      id: s.id,
      device: describeUserAgent(s.userAgent),
      ip: s.ip,
      lastActiveAt: s.updatedAt,
      current: s.id === req.browser.session.id,
    }));
    return renderSettings(app, event, req, { path: SESSIONS, title: "Sessions", notice: noticeOf(event, SESSION_NOTICES), body: sessionsBody(req.csrf, rows) });
  });

  r.post(`${SESSIONS}/revoke_others`, async (event) => {
    const got = await settingsPost(app, event, SESSIONS);
    if (got instanceof Response) return got;
    revokeOtherSessions(app, got.req.browser.user, got.req.browser.session);
    return redirectTo(event, `${SESSIONS}?notice=others`);
  });

  r.post(`${SESSIONS}/:id/revoke`, async (event) => {
    const got = await settingsPost(app, event, SESSIONS);
    if (got instanceof Response) return got;
    const id = getRouterParam(event, "id") ?? "";
    // Revoking the current session from here is signing out: use the sign-out button.
    const ok = id !== got.req.browser.session.id && revokeSession(app, got.req.browser.user, id);
    return redirectTo(event, `${SESSIONS}?notice=${ok ? "revoked" : "gone"}`);
  });

  r.get(APPS, (event) => {
    const req = settingsBrowser(app, event, APPS);
    if (req instanceof Response) return req;
    const rows = authorizedApps(app, req.browser.user).map((a) => ({
      id: a.applicationId,
      name: a.name,
      website: a.website,
      scopes: a.scopes,
      authorizedAt: a.firstAuthorizedAt,
      lastUsedAt: a.lastUsedAt,
    }));
    return renderSettings(app, event, req, { path: APPS, title: "Authorized apps", notice: noticeOf(event, APP_NOTICES), body: applicationsBody(req.csrf, rows) });
  });

  r.post(`${APPS}/:id/revoke`, async (event) => {
    const got = await settingsPost(app, event, APPS);
    if (got instanceof Response) return got;
    const n = revokeAuthorizedApp(app, got.req.browser.user, getRouterParam(event, "id") ?? "");
    return redirectTo(event, `${APPS}?notice=${n > 0 ? "revoked" : "gone"}`);
  });
}
