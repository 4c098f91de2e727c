import type { App } from "../../app.ts";
import type { Router } from "../../http/router.ts";

export function registerActorRoutes(_app: App, _r: Router): void {}
