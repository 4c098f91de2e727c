import type { H3Event } from "h3";
import type { ServerResponse } from "node:http";
import { performance } from "node:perf_hooks";
import type { App } from "../app.ts";
import { routeGroup } from "../ops/route-groups.ts";

/** Counts the request and its latency in /metrics once the response is sent (or abandoned). */
export function countRequestWhenDone(app: App, event: H3Event): void {
  const res = (event.runtime?.node as { res?: ServerResponse } | undefined)?.res;
  if (!res) return;
  const started = performance.now();
  const method = event.req.method;
  const group = routeGroup(event.url.pathname);
  res.once("close", () => {
    const status = res.headersSent && res.writableFinished ? res.statusCode : 0;
    app.metrics.request(group, method, status, (performance.now() - started) / 1000);
  });
}
