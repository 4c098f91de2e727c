import type { App } from "../../app.ts";
import { casEnabled } from "./cas.ts";
import { oidcEnabled } from "./oidc.ts";
import { samlEnabled } from "./saml.ts";

/** A sign-in button: a POST (Mastodon's omniauth request phase, CSRF-protected) to `path`. */
export interface ExternalProviderButton {
  provider: string;
  label: string;
  path: string;
}

/** The external sign-in methods this server offers, in the order the sign-in page shows them. */
export function externalSignInButtons(app: App): ExternalProviderButton[] {
  const out: ExternalProviderButton[] = [];
  if (casEnabled(app)) out.push({ provider: "cas", label: app.config.casDisplayName || "CAS", path: "/auth/auth/cas" });
  if (oidcEnabled(app)) out.push({ provider: "openid_connect", label: app.config.oidcDisplayName || "OpenID Connect", path: "/auth/auth/openid_connect" });
  if (samlEnabled(app)) out.push({ provider: "saml", label: app.config.samlDisplayName || "SAML", path: "/auth/auth/saml" });
  return out;
}
