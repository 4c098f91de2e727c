// https://docs.joinmastodon.org/methods/statuses/ — favourite, reblog, bookmark, pin and mute
// (and their undos), reblogged_by and favourited_by.
import { refreshThreadOf } from "../../../../services/thread-refresh.ts";
import { getRouterParam, type H3Event } from "h3";
import type { App } from "../../../../app.ts";
import type { Router } from "../../../../http/router.ts";
import type { Id } from "../../../../lib/ids.ts";
import type { Account, Status } from "../../../../services/domain-types.ts";
import { toApiAccounts } from "../../../../serializers/account.ts";
import { toApiStatus } from "../../../../serializers/status.ts";
import {
  bookmarkStatus,
  favouriteStatus,
  pinStatus,
  properStatus,
  reblogStatus,
  setConversationMute,
  unbookmarkStatus,
  unfavouriteStatus,
  unpinStatus,
  unreblogStatus,
} from "../../../../services/status-interactions.ts";
import { listFavouritedBy, listRebloggedBy, type Paged } from "../../../../services/status-lists.ts";
import { requireVisibleStatus } from "../../../../services/statuses.ts";
import { optionalUser, requireUser, type Viewer } from "../../../auth.ts";
import { cachePublicIfAnonymous } from "../../../headers.ts";
import { pageParams, setLinkHeader } from "../../../pagination.ts";
import { readAppParams } from "../../../params.ts";

type Action = (viewer: Viewer, id: string | undefined, event: H3Event) => Status | Promise<Status>;

export function registerStatusInteractionRoutes(app: App, r: Router): void {
  /** A POST action on a status answering with the status as the caller now sees it. */
  const action = (path: string, scopes: string[], run: Action) =>
    r.post(`/api/v1/statuses/:id/${path}`, async (event) => {
      await readAppParams(app, event);
      const viewer = requireUser(app, event, ...scopes);
      const status = await run(viewer, getRouterParam(event, "id"), event);
      return toApiStatus(app, status, viewer.account.id);
    });

  const FAV = ["write", "write:favourites"];
  // Interacting with a remote post completes its thread in the background (issue 19).
  action("favourite", FAV, (v, id) => {
    const s = favouriteStatus(app, v.account, id);
    refreshThreadOf(app, v.account.id, s.id);
    return s;
  });
  action("unfavourite", FAV, (v, id) => unfavouriteStatus(app, v.account, id));

  const STATUSES = ["write", "write:statuses"];
  action("reblog", STATUSES, async (v, id, event) => {
    const p = await readAppParams(app, event);
    const boost = reblogStatus(app, v, id, p.str("visibility")?.trim());
    refreshThreadOf(app, v.account.id, boost.reblogOfId);
    return boost;
  });
  action("unreblog", STATUSES, (v, id) => unreblogStatus(app, v.account, id));

  const BOOKMARKS = ["write", "write:bookmarks"];
  action("bookmark", BOOKMARKS, (v, id) => bookmarkStatus(app, v.account, id));
  action("unbookmark", BOOKMARKS, (v, id) => unbookmarkStatus(app, v.account, id));

  const PINS = ["write", "write:accounts"];
  action("pin", PINS, (v, id) => pinStatus(app, v.account, id));
  action("unpin", PINS, (v, id) => unpinStatus(app, v.account, id));

  const MUTES = ["write", "write:mutes"];
  action("mute", MUTES, (v, id) => setConversationMute(app, v.account, id, true));
  action("unmute", MUTES, (v, id) => setConversationMute(app, v.account, id, false));

  type AccountPage = (app: App, statusId: Id, viewerId: Id | null, k: ReturnType<typeof pageParams>) => Paged<Account>;
  /** Account lists behind a status: 40/80 per page, hidden record-id cursor, prev link with since_id. */
  const accountList = (path: string, load: AccountPage) =>
    r.get(`/api/v1/statuses/:id/${path}`, async (event) => {
      const p = await readAppParams(app, event);
      const viewer = optionalUser(app, event, "read", "read:accounts");
      const viewerId = viewer?.account.id ?? null;
      const status = properStatus(app, requireVisibleStatus(app, viewerId, getRouterParam(event, "id")));
      const k = pageParams(p, 40, 80);
      const rows = load(app, status.id, viewerId, k);
      setLinkHeader(app, event, p, { cursors: rows.map((x) => x.cursor), limit: k.limit, prevParam: "since_id" });
      cachePublicIfAnonymous(event, !!viewer);
      return toApiAccounts(app, rows.map((x) => x.item));
    });
  accountList("reblogged_by", listRebloggedBy);
  accountList("favourited_by", listFavouritedBy);
}
