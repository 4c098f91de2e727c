// WebFinger (RFC 7033), host-meta (RFC 6415) and NodeInfo discovery:
// https://docs.joinmastodon.org/spec/webfinger/ and http://nodeinfo.diaspora.software/protocol
import type { H3Event } from "h3";
import type { App } from "../../app.ts";
import type { Router } from "../../http/router.ts";
import { getNodeInfoUsage } from "../../services/instance.ts";
import { WebfingerError, resolveWebfingerResource } from "../../services/webfinger.ts";
import { toJrd } from "../../serializers/webfinger.ts";
import { NODEINFO_20_CONTENT_TYPE, toNodeInfo20, toNodeInfoLinks } from "../../serializers/nodeinfo.ts";

const THREE_DAYS = 259_200;
// Mastodon caches WebFinger failures briefly so a retry storm does not hit the database.
const ERROR_MAX_AGE = 180;

const cachePublic = (event: H3Event, seconds: number) =>
  event.res.headers.set("cache-control", `public, max-age=${seconds}`);

function body(event: H3Event, contentType: string, text: string): string {
  event.res.headers.set("content-type", contentType);
  return text;
}

export function registerDiscoveryRoutes(app: App, r: Router): void {
  r.get("/.well-known/webfinger", (event) => {
    try {
      const target = resolveWebfingerResource(app, event.url.searchParams.get("resource") ?? undefined);
      cachePublic(event, THREE_DAYS);
      return body(event, "application/jrd+json; charset=utf-8", JSON.stringify(toJrd(app, target)));
    } catch (e) {
      if (!(e instanceof WebfingerError)) throw e;
      // WebFinger errors have an empty body (RFC 7033 leaves it open; Mastodon sends none).
      event.res.status = e.status;
      cachePublic(event, ERROR_MAX_AGE);
      return "";
    }
  });

  const lrdd = `${app.baseUrl}/.well-known/webfinger?resource={uri}`;
  const hostMetaJson = (event: H3Event) => {
    cachePublic(event, THREE_DAYS);
    return body(event, "application/json; charset=utf-8", JSON.stringify({ links: [{ rel: "lrdd", template: lrdd }] }));
  };
  r.get("/.well-known/host-meta", (event) => {
    const accept = event.req.headers.get("accept") ?? "";
    if (accept.includes("json") && !accept.includes("xml")) return hostMetaJson(event);
    cachePublic(event, THREE_DAYS);
    return body(
      event,
      "application/xrd+xml; charset=utf-8",
      `<?xml version="1.0" encoding="UTF-8"?>\n<XRD xmlns="http://docs.oasis-open.org/ns/xri/xrd-1.0">\n  <Link rel="lrdd" template="${lrdd}"/>\n</XRD>\n`,
    );
  });
  r.get("/.well-known/host-meta.json", hostMetaJson);

  r.get("/.well-known/nodeinfo", (event) => {
    cachePublic(event, THREE_DAYS);
    return body(event, "application/json; charset=utf-8", JSON.stringify(toNodeInfoLinks(app)));
  });

  const nodeInfo = (event: H3Event) => {
    cachePublic(event, 1800);
    return body(event, NODEINFO_20_CONTENT_TYPE, JSON.stringify(toNodeInfo20(app, getNodeInfoUsage(app))));
  };
  r.get("/nodeinfo/2.0", nodeInfo);
  r.get("/nodeinfo/2.0.json", nodeInfo);
}
