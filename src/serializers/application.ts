import type { App } from "../app.ts";
import type { Application } from "../storage/applications.ts";

// https://docs.joinmastodon.org/entities/Application/
export interface ApiApplication {
  id: string;
  name: string;
  website: string | null;
  scopes: string[];
  redirect_uris: string[];
  /** Deprecated since 4.3 but still read by older clients: the URIs joined by newlines. */
  redirect_uri: string;
  /** Deprecated since 4.3 (see /api/v2/instance configuration.vapid). */
  vapid_key: string;
}

export interface ApiCredentialApplication extends ApiApplication {
  client_id: string;
  client_secret: string;
  client_secret_expires_at: number;
}

export function toApiApplication(app: App, a: Application): ApiApplication {
  return {
    id: a.id,
    name: a.name,
    website: a.website || null,
    scopes: a.scopes,
    redirect_uris: a.redirectUris,
    redirect_uri: a.redirectUris.join("\n"),
    vapid_key: app.config.vapidPublicKey,
  };
}

/** The registration response: the only time the client secret is ever shown. */
export function toApiCredentialApplication(app: App, a: Application, clientSecret: string): ApiCredentialApplication {
  return { ...toApiApplication(app, a), client_id: a.clientId, client_secret: clientSecret, client_secret_expires_at: 0 };
}
