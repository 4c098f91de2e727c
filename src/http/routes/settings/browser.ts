// What every settings route shares: the signed-in browser (or a redirect to sign in), the CSRF
// check of its forms, and rendering a page in the settings shell.
import type { H3Event } from "h3";
import type { App } from "../../../app.ts";
import { type BrowserSession, currentSession } from "../../../services/web-sessions.ts";
import { clientIp } from "../../auth.ts";
import { browserCsrf, csrfValid, sessionCookieValue } from "../../cookies.ts";
import { htmlPage, newNonce, redirectTo } from "../../html/layout.ts";
import { type SettingsPage, settingsLayout } from "../../html/settings/shell.ts";
import { type Params, readAppParams } from "../../params.ts";
import { invalidCsrfPage, signInLocation } from "../oauth/sessions.ts";

export interface SettingsRequest {
  browser: BrowserSession;
  csrf: string;
  cookies: string[];
}

/** The signed-in browser, or the redirect to the sign-in form that comes back to `path`. */
export function settingsBrowser(app: App, event: H3Event, path: string): SettingsRequest | Response {
  const browser = currentSession(app, sessionCookieValue(event), clientIp(event));
  if (!browser) return redirectTo(event, signInLocation(path));
  const csrf = browserCsrf(app, event);
  return { browser, csrf: csrf.token, cookies: csrf.setCookie ? [csrf.setCookie] : [] };
}

/** A settings form's POST: signed in and carrying a valid CSRF token, or the page that says why not. */
export async function settingsPost(app: App, event: H3Event, path: string): Promise<{ req: SettingsRequest; p: Params } | Response> {
  const p = await readAppParams(app, event);
  if (!csrfValid(app, event, p.str("authenticity_token"))) return invalidCsrfPage(event);
  const req = settingsBrowser(app, event, path);
  if (req instanceof Response) return req;
  return { req, p };
}

export function renderSettings(
  app: App,
  event: H3Event,
  req: SettingsRequest,
  page: Omit<SettingsPage, "nonce" | "csrf" | "instanceTitle" | "handle">,
  status = 200,
): Response {
  const nonce = newNonce();
  const html = settingsLayout({
    ...page,
    nonce,
    csrf: req.csrf,
    instanceTitle: app.config.title,
    handle: `@${req.browser.account.username}@${app.config.domain}`,
  });
  return htmlPage(event, status, html, nonce, req.cookies);
}

/** Notices after a redirect are chosen by key, so no text of the URL is ever shown. */
export function noticeOf(event: H3Event, notices: Record<string, string>): string | undefined {
  const key = new URL(event.req.url).searchParams.get("notice");
  return key && Object.hasOwn(notices, key) ? notices[key] : undefined;
}
