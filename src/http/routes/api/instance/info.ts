// https://docs.joinmastodon.org/methods/instance/#v2 and #v1
import type { App } from "../../../../app.ts";
import type { Router } from "../../../router.ts";
import { cachePublicAlways } from "../../../headers.ts";
import { getInstanceInfo } from "../../../../services/instance.ts";
import { toApiInstanceV1, toApiInstanceV2 } from "../../../../serializers/instance.ts";

// RFC 9745: deprecated since Mastodon 4.0 (2022-11-14).
const V1_DEPRECATION = "@1668384000";

export function registerInstanceInfoRoutes(app: App, r: Router): void {
  r.get("/api/v2/instance", (event) => {
    cachePublicAlways(event);
    return toApiInstanceV2(app, getInstanceInfo(app));
  });

  r.get("/api/v1/instance", (event) => {
    cachePublicAlways(event);
    event.res.headers.set("deprecation", V1_DEPRECATION);
    return toApiInstanceV1(app, getInstanceInfo(app, { stats: true }));
  });
}
