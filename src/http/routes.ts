import type { App } from "../app.ts";
import type { Router } from "./router.ts";
import { registerOauthRoutes } from "./routes/oauth.ts";
import { registerAppsRoutes } from "./routes/api/v1/apps.ts";
import { registerAccountsRoutes } from "./routes/api/v1/accounts.ts";
import { registerPreferencesRoutes } from "./routes/api/v1/preferences.ts";
import { registerInstanceRoutes } from "./routes/api/instance.ts";
import { registerCustomEmojisRoutes } from "./routes/api/v1/custom-emojis.ts";
import { registerDiscoveryRoutes } from "./routes/well-known.ts";
import { registerMediaFileRoutes } from "./routes/media-files.ts";
import { registerHealthRoutes } from "./routes/health.ts";

/** Every HTTP route of the server, one module per resource. */
export function registerRoutes(app: App, r: Router): void {
  registerHealthRoutes(app, r);
  registerOauthRoutes(app, r);
  registerAppsRoutes(app, r);
  registerAccountsRoutes(app, r);
  registerPreferencesRoutes(app, r);
  registerInstanceRoutes(app, r);
  registerCustomEmojisRoutes(app, r);
  registerDiscoveryRoutes(app, r);
  registerMediaFileRoutes(app, r);
}
