// https://docs.joinmastodon.org/methods/oauth/#authorize — the browser-facing consent flow.
import type { H3Event } from "h3";
import type { App } from "../../../app.ts";
import type { Router } from "../../router.ts";
import { type Params, readAppParams } from "../../params.ts";
import { browserCsrf, csrfValid, sessionCookieValue } from "../../cookies.ts";
import { htmlPage, newNonce, redirectTo } from "../../html/layout.ts";
import { consentPage, formPostPage, nativeCodePage, oauthErrorPage } from "../../html/authorize-pages.ts";
import { groupScopes } from "../../html/permissions.ts";
import {
  type AuthorizeError,
  type AuthorizeOutcome,
  type AuthorizeRequest,
  OAUTH_DESCRIPTIONS,
  approveAuthorization,
  canSkipConsent,
  denyAuthorization,
  validateAuthorizeRequest,
} from "../../../services/oauth-authorize.ts";
import { currentSession } from "../../../services/web-sessions.ts";
import { invalidCsrfPage, signInLocation } from "./sessions.ts";

function readRequest(app: App, p: Params) {
  return validateAuthorizeRequest(app, {
    clientId: p.str("client_id"),
    redirectUri: p.str("redirect_uri"),
    responseType: p.str("response_type"),
    responseMode: p.str("response_mode"),
    scope: p.str("scope"),
    state: p.str("state"),
    codeChallenge: p.str("code_challenge"),
    codeChallengeMethod: p.str("code_challenge_method"),
    forceLogin: p.bool("force_login"),
  });
}

function errorPage(event: H3Event, e: AuthorizeError): Response {
  const nonce = newNonce();
  return htmlPage(event, e.status, oauthErrorPage({ nonce, error: e.error, description: e.description }), nonce);
}

/** The parameters the consent forms re-submit (and the GET URL they stand for). */
function requestFields(req: AuthorizeRequest): Record<string, string> {
  const f: Record<string, string> = {
    client_id: req.client.clientId,
    redirect_uri: req.redirectUri,
    response_type: "code",
    scope: req.scopes.join(" "),
  };
  if (req.responseModeGiven) f.response_mode = req.responseMode;
  if (req.state !== null) f.state = req.state;
  if (req.codeChallenge !== null) {
    f.code_challenge = req.codeChallenge;
    f.code_challenge_method = req.codeChallengeMethod ?? "S256";
  }
  // Kept through "use a different account" and the sign-in detour, so the account that signs
  // in next still sees the consent page instead of a silent approval.
  if (req.forceLogin) f.force_login = "true";
  return f;
}

function authorizeUrl(req: AuthorizeRequest): string {
  return `/oauth/authorize?${new URLSearchParams(requestFields(req))}`;
}

function deliver(event: H3Event, outcome: AuthorizeOutcome): Response {
  switch (outcome.kind) {
    case "redirect":
      return redirectTo(event, outcome.location);
    case "oob_code":
      return redirectTo(event, `/oauth/authorize/native?code=${encodeURIComponent(outcome.code)}`);
    case "oob_error":
      return new Response(JSON.stringify(outcome.body), {
        status: 400,
        headers: { "content-type": "application/json; charset=utf-8", "cache-control": "no-store" },
      });
    case "form_post": {
      const nonce = newNonce();
      return htmlPage(event, 200, formPostPage({ nonce, action: outcome.action, fields: outcome.fields }), nonce);
    }
  }
}

export function registerAuthorizeRoutes(app: App, r: Router): void {
  // Parameters are checked before the sign-in redirect, so a broken client link fails at once
  // instead of after a login.
  r.get("/oauth/authorize", async (event) => {
    const p = await readAppParams(app, event);
    const v = readRequest(app, p);
    if ("error" in v) return errorPage(event, v.error);
    const browser = currentSession(app, sessionCookieValue(event));
    if (!browser) return redirectTo(event, signInLocation(event.url.pathname + event.url.search));
    if (canSkipConsent(app, v.request, browser.user.id)) return deliver(event, approveAuthorization(app, v.request, browser.user.id));
    const csrf = browserCsrf(app, event);
    const nonce = newNonce();
    const html = consentPage({
      nonce,
      appName: v.request.client.name,
      appWebsite: v.request.client.website,
      handle: `@${browser.account.username}@${app.config.domain}`,
      permissions: groupScopes(v.request.scopes),
      fields: requestFields(v.request),
      csrf: csrf.token,
      returnTo: authorizeUrl(v.request),
    });
    return htmlPage(event, 200, html, nonce, csrf.setCookie ? [csrf.setCookie] : []);
  });

  // Authorize (POST) and Deny (POST with `deny`, or DELETE as Doorkeeper's form does).
  const decide = async (event: H3Event) => {
    const p = await readAppParams(app, event);
    if (!csrfValid(app, event, p.str("authenticity_token"))) return invalidCsrfPage(event);
    const v = readRequest(app, p);
    if ("error" in v) return errorPage(event, v.error);
    const browser = currentSession(app, sessionCookieValue(event));
    if (!browser) return redirectTo(event, signInLocation(authorizeUrl(v.request)));
    const deny = event.req.method === "DELETE" || p.has("deny") || p.str("_method")?.toLowerCase() === "delete";
    return deliver(event, deny ? denyAuthorization(v.request) : approveAuthorization(app, v.request, browser.user.id));
  };
  r.post("/oauth/authorize", decide);
  r.delete("/oauth/authorize", decide);

  // The out-of-band page (redirect_uri urn:ietf:wg:oauth:2.0:oob).
  r.get("/oauth/authorize/native", async (event) => {
    const p = await readAppParams(app, event);
    const code = p.str("code");
    if (!code || code.length > 200) {
      return errorPage(event, { error: "invalid_request", description: OAUTH_DESCRIPTIONS.invalid_request, status: 400 });
    }
    const nonce = newNonce();
    return htmlPage(event, 200, nativeCodePage({ nonce, code }), nonce);
  });
}
