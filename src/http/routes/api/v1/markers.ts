// https://docs.joinmastodon.org/methods/markers/
import type { App } from "../../../../app.ts";
import type { Router } from "../../../../http/router.ts";
import { requireUser } from "../../../auth.ts";
import { readAppParams } from "../../../params.ts";
import { getMarkers, MARKER_TIMELINES, type MarkerTimeline, setMarkers } from "../../../../services/markers.ts";
import { toApiMarkers } from "../../../../serializers/marker.ts";

export function registerMarkersRoutes(app: App, r: Router): void {
  r.get("/api/v1/markers", async (event) => {
    const viewer = requireUser(app, event, "read:statuses");
    const p = await readAppParams(app, event);
    const timelines = p.strArray("timeline", { allowScalar: true }) ?? [];
    return toApiMarkers(getMarkers(app, viewer.account.id, timelines));
  });

  // home[last_read_id] and/or notifications[last_read_id]; other keys are ignored.
  r.post("/api/v1/markers", async (event) => {
    const viewer = requireUser(app, event, "write:statuses");
    const p = await readAppParams(app, event);
    const input: Partial<Record<MarkerTimeline, string | undefined>> = {};
    for (const t of MARKER_TIMELINES) {
      if (!p.has(t)) continue;
      input[t] = p.obj(t)?.str("last_read_id");
    }
    return toApiMarkers(setMarkers(app, viewer.account.id, input));
  });
}
