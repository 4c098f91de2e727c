import type { App } from "../../app.ts";
import type { Router } from "../../http/router.ts";

export function registerInboxRoutes(_app: App, _r: Router): void {}
