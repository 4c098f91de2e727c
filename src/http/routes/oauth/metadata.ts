// https://docs.joinmastodon.org/methods/oauth/#authorization-server-metadata and #userinfo
import type { H3Event } from "h3";
import type { App } from "../../../app.ts";
import type { Router } from "../../router.ts";
import { requireUser } from "../../auth.ts";
import { cachePublicAlways } from "../../headers.ts";
import { readAppParams } from "../../params.ts";
import { ALL_SCOPES } from "../../../lib/scopes.ts";
import { toApiAccount } from "../../../serializers/account.ts";

export function registerOauthMetadataRoutes(app: App, r: Router): void {
  // RFC 8414 (Mastodon 4.3+); clients probe it to detect PKCE and the registration endpoint.
  r.get("/.well-known/oauth-authorization-server", (event) => {
    cachePublicAlways(event, 900);
    const b = app.baseUrl;
    return {
      issuer: `${b}/`,
      // roost implements Mastodon's API: its documentation is Mastodon's.
      service_documentation: "https://docs.joinmastodon.org/",
      authorization_endpoint: `${b}/oauth/authorize`,
      token_endpoint: `${b}/oauth/token`,
      app_registration_endpoint: `${b}/api/v1/apps`,
      revocation_endpoint: `${b}/oauth/revoke`,
      userinfo_endpoint: `${b}/oauth/userinfo`,
      scopes_supported: ALL_SCOPES,
      response_types_supported: ["code"],
      response_modes_supported: ["query", "fragment", "form_post"],
      code_challenge_methods_supported: ["S256"],
      grant_types_supported: ["authorization_code", "client_credentials"],
      token_endpoint_auth_methods_supported: ["client_secret_basic", "client_secret_post"],
    };
  });

  // OpenID-style user info (4.4+): needs the `profile` scope itself; `read` is not enough.
  const userinfo = async (event: H3Event) => {
    if (event.req.method === "POST") await readAppParams(app, event); // lets access_token come in the body
    const { account } = requireUser(app, event, "profile");
    const avatar = (toApiAccount(app, account) as { avatar?: unknown }).avatar;
    return {
      iss: `${app.baseUrl}/`,
      sub: account.uri,
      name: account.displayName,
      preferred_username: account.username,
      profile: account.url ?? `${app.baseUrl}/@${account.username}`,
      picture: typeof avatar === "string" && avatar ? avatar : `${app.baseUrl}/avatars/original/missing.png`,
    };
  };
  r.get("/oauth/userinfo", userinfo);
  r.post("/oauth/userinfo", userinfo);
}
