import type { App } from "../app.ts";
import type { Router } from "../http/router.ts";
import { registerActorRoutes } from "./routes/actor-routes.ts";
import { registerInboxRoutes } from "./routes/inbox-routes.ts";
import { registerInboxJobs } from "./inbox/jobs.ts";
import { registerOutboxJobs } from "./outbox/jobs.ts";
import { registerResolveJobs } from "./resolve/jobs.ts";
import { registerThreadJobs } from "./thread-resolve.ts";

// Federation's HTTP routes and jobs, one register function per area (each owned by its module).

export function registerFederationRoutes(app: App, r: Router): void {
  registerActorRoutes(app, r);
  registerInboxRoutes(app, r);
}

export function registerFederationJobs(app: App): void {
  registerInboxJobs(app);
  registerOutboxJobs(app);
  registerResolveJobs(app);
  registerThreadJobs(app);
}
