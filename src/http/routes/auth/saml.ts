// SAML sign-in at Mastodon's omniauth paths (/auth/auth/saml, /auth/auth/saml/callback, and the
// SP metadata at /auth/auth/saml/metadata as omniauth-saml serves it, application/xml). The
// callback is the IdP's cross-site POST: no CSRF token and no cookie of ours come with it; the
// signed Response answering our own AuthnRequest (services/external-auth/saml.ts) stands in.
import type { App } from "../../../app.ts";
import type { Router } from "../../router.ts";
import { readAppParams } from "../../params.ts";
import { csrfValid } from "../../cookies.ts";
import { redirectTo } from "../../html/layout.ts";
import { SAML_METADATA_PATH, samlAuthorizeUrl, samlEnabled, samlIdentity, samlServiceProviderMetadata } from "../../../services/external-auth/saml.ts";
import { invalidCsrfPage, safeReturnTo } from "../oauth/sessions.ts";
import { finishFlow, externalFailurePage } from "./external-flow.ts";
import { ApiError } from "../../../errors.ts";
import { randomToken } from "../../../lib/crypto.ts";

const MAX_RESPONSE = 512 * 1024;

export function registerSamlRoutes(app: App, r: Router): void {
  r.post("/auth/auth/saml", async (event) => {
    if (!samlEnabled(app)) throw new ApiError(404, "Record not found");
    const p = await readAppParams(app, event);
    if (!csrfValid(app, event, p.str("authenticity_token"))) return invalidCsrfPage(event);
    return redirectTo(event, await samlAuthorizeUrl(app, randomToken(24), safeReturnTo(p.str("return_to"))));
  });

  r.get(SAML_METADATA_PATH, async (event) => {
    if (!samlEnabled(app)) throw new ApiError(404, "Record not found");
    const xml = await samlServiceProviderMetadata(app);
    event.res.headers.set("content-type", "application/xml; charset=utf-8");
    return xml;
  });

  r.post("/auth/auth/saml/callback", async (event) => {
    if (!samlEnabled(app)) throw new ApiError(404, "Record not found");
    const p = await readAppParams(app, event);
    const response = p.str("SAMLResponse") ?? "";
    const relay = p.str("RelayState") ?? "";
    if (!response || response.length > MAX_RESPONSE || relay.length > 200) return externalFailurePage(app, event, 422, "The SAML response is missing or too large.", null);
    const { who, returnTo } = await samlIdentity(app, response, relay);
    return finishFlow(app, event, { provider: "saml", state: relay, returnTo, expiresAt: 0 }, who);
  });
}
