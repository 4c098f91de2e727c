// What every external sign-in route shares: starting a flow (CSRF-checked POST, as Mastodon's
// omniauth request phase), finishing it with the same session cookie and OAuth continuation
// (return_to) as a password sign-in, and the page shown when it fails.
import type { H3Event } from "h3";
import type { App } from "../../../app.ts";
import { clientIp } from "../../auth.ts";
import { SESSION_COOKIE, browserCsrf, clearCookie, readCookies, sessionCookieValue, setCookie } from "../../cookies.ts";
import { htmlPage, newNonce, redirectTo } from "../../html/layout.ts";
import { signInPage } from "../../html/auth-pages.ts";
import { FLOW_TTL_MS, type FlowState, newFlow, openFlow } from "../../../services/external-auth/flow-state.ts";
import { type ExternalIdentity, signInExternal } from "../../../services/external-auth/identities.ts";
import { externalSignInButtons } from "../../../services/external-auth/providers.ts";
import { pamSignInAvailable } from "../../../services/external-auth/pam.ts";
import { signOut } from "../../../services/web-sessions.ts";

export const FLOW_COOKIE = "roost_ext_auth";
export const FLOW_LOST = "The sign-in could not be completed: it was started in another browser, or it took too long. Please try again.";

/** Starts a flow: the sealed state goes into a short-lived cookie; returns it and the Set-Cookie. */
export function startFlow(app: App, provider: string, returnTo: string | null, extra?: Record<string, string>, state?: string): { flow: FlowState; cookie: string } {
  const { flow, sealed } = newFlow(app, provider, returnTo, extra, state);
  return { flow, cookie: setCookie(app, FLOW_COOKIE, sealed, Math.floor(FLOW_TTL_MS / 1000)) };
}

export function resumeFlow(app: App, event: H3Event, provider: string, state: string | undefined): FlowState | undefined {
  return openFlow(app, readCookies(event)[FLOW_COOKIE], provider, state);
}

/** The sign-in page again, with why the external sign-in failed. */
export async function externalFailurePage(app: App, event: H3Event, status: number, message: string, returnTo: string | null): Promise<Response> {
  const nonce = newNonce();
  const csrf = browserCsrf(app, event);
  const html = signInPage({ nonce, instanceTitle: app.config.title, csrf: csrf.token, returnTo, error: message, providers: externalSignInButtons(app), pam: await pamSignInAvailable(app) });
  return htmlPage(event, status, html, nonce, [clearCookie(app, FLOW_COOKIE), ...(csrf.setCookie ? [csrf.setCookie] : [])]);
}

/** Signs in as the proven identity and continues where the flow began (an OAuth authorization, usually). */
export async function finishFlow(app: App, event: H3Event, flow: FlowState, who: ExternalIdentity | string): Promise<Response> {
  if (typeof who === "string") return externalFailurePage(app, event, 401, who, flow.returnTo);
  const result = await signInExternal(app, who, { userAgent: event.req.headers.get("user-agent"), ip: clientIp(event) });
  if (!result.ok) return externalFailurePage(app, event, 403, result.message, flow.returnTo);
  signOut(app, sessionCookieValue(event));
  return redirectTo(event, flow.returnTo ?? "/auth/sign_in", [clearCookie(app, FLOW_COOKIE), setCookie(app, SESSION_COOKIE, result.sessionId)]);
}
