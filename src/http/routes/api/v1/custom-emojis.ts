// PLACEHOLDER: filled in by its work package.
import type { App } from "../../../../app.ts";
import type { Router } from "../../../../http/router.ts";

export function registerCustomEmojisRoutes(_app: App, _r: Router): void {}
