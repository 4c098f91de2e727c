import type { App } from "../../app.ts";
import type { Router } from "../router.ts";

// Mastodon's /health answers "OK" as plain text for load balancers and uptime checks. roost
// answers 503 instead when its database does not answer a read, so a balancer takes the
// instance out of rotation rather than sending it requests that would fail. (The full picture:
// `roost status`, and /metrics.)
export function registerHealthRoutes(app: App, r: Router): void {
  r.get("/health", (event) => {
    let ok = true;
    try {
      app.db.prepare("SELECT 1").get();
    } catch (e) {
      ok = false;
      app.log.error("health check: the database does not answer", { err: e });
    }
    event.res.status = ok ? 200 : 503;
    event.res.headers.set("content-type", "text/plain; charset=utf-8");
    return ok ? "OK" : "database unavailable";
  });
}
