// OpenID Connect sign-in at Mastodon's omniauth paths (/auth/auth/openid_connect and its
// callback). The protocol itself is in services/external-auth/oidc.ts.
import type { App } from "../../../app.ts";
import type { Router } from "../../router.ts";
import { readAppParams } from "../../params.ts";
import { csrfValid } from "../../cookies.ts";
import { redirectTo } from "../../html/layout.ts";
import { oidcAuthorizationUrl, oidcEnabled, oidcIdentity } from "../../../services/external-auth/oidc.ts";
import { invalidCsrfPage, safeReturnTo } from "../oauth/sessions.ts";
import { FLOW_LOST, externalFailurePage, finishFlow, resumeFlow, startFlow } from "./external-flow.ts";
import { ApiError } from "../../../errors.ts";
import { randomToken } from "../../../lib/crypto.ts";

export function registerOidcRoutes(app: App, r: Router): void {
  r.post("/auth/auth/openid_connect", async (event) => {
    if (!oidcEnabled(app)) throw new ApiError(404, "Record not found");
    const p = await readAppParams(app, event);
    if (!csrfValid(app, event, p.str("authenticity_token"))) return invalidCsrfPage(event);
    const returnTo = safeReturnTo(p.str("return_to"));
    const state = randomToken(24);
    const target = await oidcAuthorizationUrl(app, state);
    if (typeof target === "string") return externalFailurePage(app, event, 502, target, returnTo);
    const { cookie } = startFlow(app, "openid_connect", returnTo, target.secrets, state);
    return redirectTo(event, target.url, [cookie]);
  });

  r.get("/auth/auth/openid_connect/callback", async (event) => {
    if (!oidcEnabled(app)) throw new ApiError(404, "Record not found");
    const query = new URLSearchParams(event.url.search);
    const state = query.get("state") ?? undefined;
    const flow = resumeFlow(app, event, "openid_connect", state);
    if (!flow || !state || !flow.extra) return externalFailurePage(app, event, 422, FLOW_LOST, null);
    return finishFlow(app, event, flow, await oidcIdentity(app, query, state, flow.extra));
  });
}
