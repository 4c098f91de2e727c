// https://docs.joinmastodon.org/spec/oauth/ — Mastodon's OAuth 2.0 server (Doorkeeper's wire
// behaviour) and the browser sign-in it relies on.
import type { App } from "../../app.ts";
import type { Router } from "../../http/router.ts";
import { registerAuthorizeRoutes } from "./oauth/authorize.ts";
import { registerOauthMetadataRoutes } from "./oauth/metadata.ts";
import { registerSessionRoutes } from "./oauth/sessions.ts";
import { registerEmailLinkRoutes } from "./oauth/email-links.ts";
import { registerTokenRoutes } from "./oauth/token.ts";
import { registerCasRoutes } from "./auth/cas.ts";
import { registerOidcRoutes } from "./auth/oidc.ts";
import { registerSamlRoutes } from "./auth/saml.ts";

export function registerOauthRoutes(app: App, r: Router): void {
  registerSessionRoutes(app, r);
  registerEmailLinkRoutes(app, r);
  registerAuthorizeRoutes(app, r);
  registerTokenRoutes(app, r);
  registerOauthMetadataRoutes(app, r);
  registerCasRoutes(app, r);
  registerOidcRoutes(app, r);
  registerSamlRoutes(app, r);
}
