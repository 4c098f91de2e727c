// An actor's collections (AP §6): outbox, followers, following, featured posts and tags.
// Always JSON: Mastodon has no HTML representation for them.
import type { H3Event } from "h3";
import type { App } from "../../app.ts";
import { forbidden } from "../../errors.ts";
import { type Id, parseId } from "../../lib/ids.ts";
import type { Router } from "../../http/router.ts";
import type { Account } from "../../storage/accounts.ts";
import {
  type FollowDirection,
  OUTBOX_PAGE_SIZE,
  toApFeatured,
  toApFollowCollection,
  toApFollowCollectionPage,
  toApOutbox,
  toApOutboxPage,
} from "../serializers/collections.ts";
import { toApFeaturedTagsCollection } from "../serializers/featured-tags.ts";
import { cacheFor, notFoundAp, param, type Requester, requester, sendAp } from "./ap-response.ts";
import { listAccountFeaturedTags } from "../../services/featured-tags.ts";
import { findServedAccount, outboxStatuses, pinnedStatuses, relationTo } from "./served-objects.ts";

// Page numbers past this are not worth the OFFSET scan: no small instance has 1.2 M follows.
const MAX_FOLLOWS_PAGE = 100_000;

async function owner(app: App, event: H3Event): Promise<{ account: Account; who: Requester }> {
  const found = findServedAccount(app, param(event, "username"));
  if (!found) throw notFoundAp();
  return { account: found.account, who: await requester(app, event) };
}

/** `?page=N`, from 1; anything else reads as the first page (Kaminari does the same). */
function pageNumber(raw: string | null): number {
  const n = raw && /^[0-9]{1,6}$/.test(raw) ? Number(raw) : 1;
  return Math.min(Math.max(n, 1), MAX_FOLLOWS_PAGE);
}

/** `min_id=0` (the `last` link) is the oldest page: a cursor below every id. */
const cursorId = (raw: string | null): Id | undefined => (raw === "0" ? "0" : parseId(raw ?? undefined));

export function registerCollectionRoutes(app: App, r: Router): void {
  r.get("/users/:username/outbox", async (event) => {
    const { account, who } = await owner(app, event);
    const q = event.url.searchParams;
    if (!q.has("page")) return sendAp(app, event, toApOutbox(account), "public");
    const cursor = { maxId: parseId(q.get("max_id") ?? undefined), minId: cursorId(q.get("min_id")) };
    const relation = relationTo(app, account, who.signerId);
    const statuses = outboxStatuses(app, account, who.signerId, relation, { limit: OUTBOX_PAGE_SIZE, ...cursor });
    return sendAp(app, event, toApOutboxPage(app, account, statuses, cursor), cacheFor(who));
  });

  const follows = (direction: FollowDirection) => async (event: H3Event) => {
    const { account } = await owner(app, event);
    const q = event.url.searchParams;
    if (!q.has("page")) return sendAp(app, event, toApFollowCollection(account, direction), "public");
    // Hidden collections show their size only (AP §6).
    if (account.hideCollections) throw forbidden();
    return sendAp(app, event, toApFollowCollectionPage(app, account, direction, pageNumber(q.get("page"))), "public");
  };
  r.get("/users/:username/followers", follows("followers"));
  r.get("/users/:username/following", follows("following"));

  r.get("/users/:username/collections/featured", async (event) => {
    const { account, who } = await owner(app, event);
    // Signers the owner blocks see no pins (Mastodon's for_signed_account).
    const pinned = relationTo(app, account, who.signerId) === "blocked" ? [] : pinnedStatuses(app, account);
    return sendAp(app, event, toApFeatured(app, account, pinned), cacheFor(who));
  });

  r.get("/users/:username/collections/tags", async (event) => {
    const { account, who } = await owner(app, event);
    // As for pins: signers the owner blocks see none.
    const featured = relationTo(app, account, who.signerId) === "blocked" ? [] : listAccountFeaturedTags(app, account);
    return sendAp(app, event, toApFeaturedTagsCollection(app, account, featured), cacheFor(who));
  });
}
