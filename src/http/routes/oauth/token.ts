// https://docs.joinmastodon.org/methods/oauth/#token and #revoke
import type { App } from "../../../app.ts";
import type { Router } from "../../router.ts";
import { readAppParams } from "../../params.ts";
import { clientCredentials, exchangeToken, revokeClientToken } from "../../../services/oauth-token.ts";

export function registerTokenRoutes(app: App, r: Router): void {
  r.post("/oauth/token", async (event) => {
    const p = await readAppParams(app, event);
    const creds = clientCredentials(event.req.headers.get("authorization"), {
      clientId: p.str("client_id"),
      clientSecret: p.str("client_secret"),
    });
    const res = exchangeToken(app, {
      ...creds,
      grantType: p.str("grant_type"),
      code: p.str("code"),
      redirectUri: p.str("redirect_uri"),
      codeVerifier: p.str("code_verifier"),
      scope: p.str("scope"),
    });
    // RFC 6749 §5.1: token responses must not be cached.
    event.res.headers.set("cache-control", "no-store");
    event.res.headers.set("pragma", "no-cache");
    return res;
  });

  r.post("/oauth/revoke", async (event) => {
    const p = await readAppParams(app, event);
    const creds = clientCredentials(event.req.headers.get("authorization"), {
      clientId: p.str("client_id"),
      clientSecret: p.str("client_secret"),
    });
    revokeClientToken(app, { ...creds, token: p.str("token") });
    return {};
  });
}
