// https://docs.joinmastodon.org/methods/bookmarks/ and https://docs.joinmastodon.org/methods/favourites/
import type { App } from "../../../../app.ts";
import type { Router } from "../../../../http/router.ts";
import { toApiStatuses } from "../../../../serializers/status.ts";
import { listBookmarks, listFavourites } from "../../../../services/status-lists.ts";
import { requireUser } from "../../../auth.ts";
import { pageParams, setLinkHeader } from "../../../pagination.ts";
import { readAppParams } from "../../../params.ts";

export function registerBookmarksFavouritesRoutes(app: App, r: Router): void {
  // Newest bookmark (favourite) first; the cursor is the hidden bookmark (favourite) id.
  r.get("/api/v1/bookmarks", async (event) => {
    const p = await readAppParams(app, event);
    const viewer = requireUser(app, event, "read", "read:bookmarks");
    const k = pageParams(p, 20, 40);
    const rows = listBookmarks(app, viewer.account.id, k);
    setLinkHeader(app, event, p, { cursors: rows.map((x) => x.cursor), limit: k.limit });
    return toApiStatuses(app, rows.map((x) => x.item), viewer.account.id);
  });

  r.get("/api/v1/favourites", async (event) => {
    const p = await readAppParams(app, event);
    const viewer = requireUser(app, event, "read", "read:favourites");
    const k = pageParams(p, 20, 40);
    const rows = listFavourites(app, viewer.account.id, k);
    setLinkHeader(app, event, p, { cursors: rows.map((x) => x.cursor), limit: k.limit });
    return toApiStatuses(app, rows.map((x) => x.item), viewer.account.id);
  });
}
