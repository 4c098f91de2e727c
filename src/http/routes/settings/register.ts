// The settings area (issue 16): server-rendered pages at /settings/*, one route file per part.
import type { App } from "../../../app.ts";
import type { Router } from "../../router.ts";
import { registerSettingsAccountRoutes } from "./account.ts";
import { registerSettingsProfileRoutes } from "./profile.ts";
import { registerSettingsSessionRoutes } from "./sessions.ts";

export function registerSettingsRoutes(app: App, r: Router): void {
  registerSettingsProfileRoutes(app, r);
  registerSettingsAccountRoutes(app, r);
  registerSettingsSessionRoutes(app, r);
}
