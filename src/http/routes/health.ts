import type { App } from "../../app.ts";
import type { Router } from "../router.ts";

// Mastodon's /health answers "OK" as plain text for load balancers and uptime checks.
export function registerHealthRoutes(app: App, r: Router): void {
  r.get("/health", (event) => {
    app.db.prepare("SELECT 1").get();
    event.res.headers.set("content-type", "text/plain; charset=utf-8");
    return "OK";
  });
}
