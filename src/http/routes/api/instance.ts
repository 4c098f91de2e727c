// https://docs.joinmastodon.org/methods/instance/
import type { App } from "../../../app.ts";
import type { Router } from "../../../http/router.ts";
import { registerInstanceInfoRoutes } from "./instance/info.ts";
import { registerInstanceListRoutes } from "./instance/lists.ts";
import { registerInstancePageRoutes } from "./instance/pages.ts";
import { registerInstanceImageRoutes } from "./instance/images.ts";

/**
 * Instance metadata. Every endpoint here is public, ignores any token and is cached publicly for
 * 5 minutes even when a token is sent (no Vary: Authorization). Roost has no limited-federation
 * mode, so `publicApi: false` does not close them: apps read them before anyone logs in.
 */
export function registerInstanceRoutes(app: App, r: Router): void {
  registerInstanceInfoRoutes(app, r);
  registerInstanceListRoutes(app, r);
  registerInstancePageRoutes(app, r);
  registerInstanceImageRoutes(app, r);
}
