import type { App } from "../../app.ts";
import { ApiError } from "../../errors.ts";
import { safeEqual, sha256Hex } from "../../lib/crypto.ts";
import type { Router } from "../router.ts";

// Prometheus text exposition (https://prometheus.io/docs/instrumenting/exposition_formats/),
// served only when `metricsToken` is set, to a scraper that sends it as a bearer token
// (Prometheus: `authorization: { credentials: ... }` in the scrape config).
export function registerMetricsRoutes(app: App, r: Router): void {
  const token = app.config.metricsToken;
  if (!token) return;
  const expected = sha256Hex(token);
  r.get("/metrics", async (event) => {
    const m = /^Bearer +(\S+)$/i.exec(event.req.headers.get("authorization") ?? "");
    if (!m || !safeEqual(sha256Hex(m[1]), expected)) {
      throw new ApiError(401, "The access token is invalid", undefined, undefined, { "www-authenticate": 'Bearer realm="metrics"' });
    }
    event.res.headers.set("content-type", app.metrics.contentType);
    return await app.metrics.render();
  });
}
