// https://docs.joinmastodon.org/methods/grouped_notifications/ (Mastodon 4.3)
import { getRouterParam, type H3Event } from "h3";
import type { App } from "../../../../app.ts";
import type { Router } from "../../../router.ts";
import { requireUser } from "../../../auth.ts";
import { pageParams, setLinkHeader } from "../../../pagination.ts";
import { readAppParams, type Params } from "../../../params.ts";
import { badRequest, notFound } from "../../../../errors.ts";
import { jsonText } from "../../../headers.ts";
import { clearNotifications, notificationFilter } from "../../../../services/notification-reads.ts";
import {
  dismissNotificationGroup,
  getNotificationGroup,
  groupedTypesOf,
  listNotificationGroupAccounts,
  unreadNotificationGroupCount,
} from "../../../../services/notification-groups.ts";
import { installNotificationGroupPagesCache, listNotificationGroupsCached } from "../../../../services/notification-group-pages.ts";
import { accountsOfPage } from "../../../../services/relationships.ts";
import { toApiAccounts } from "../../../../serializers/account.ts";
import { type ExpandAccounts, toApiGroupedNotificationsJson } from "../../../../serializers/notification-group.ts";

const READ = ["read:notifications"];
const WRITE = ["write:notifications"];
// A group key is "<type>[-<status id>]-<hour>" or "ungrouped-<id>"; anything longer is unknown.
const MAX_KEY = 100;

// v2 reads no `account_id` (Mastodon's documentation lists it, its code ignores it).
function filterOf(p: Params) {
  return notificationFilter(p.strArray("types"), p.strArray("exclude_types"), undefined, p.bool("include_filtered") === true);
}

function expandOf(p: Params): ExpandAccounts {
  const v = p.str("expand_accounts") ?? (p.has("expand_accounts") ? "" : undefined);
  if (v === undefined || v === "full") return "full";
  if (v === "partial_avatars") return v;
  throw badRequest(`Invalid value for 'expand_accounts': '${v.slice(0, 100)}', allowed values are 'full' and 'partial_avatars'`);
}

/** The path's group key; undefined when it cannot name a group. */
function groupKeyOf(event: H3Event): string | undefined {
  const key = getRouterParam(event, "group_key", { decode: true }) ?? "";
  return key === "" || key.length > MAX_KEY ? undefined : key;
}

export function registerNotificationGroupsRoutes(app: App, r: Router): void {
  installNotificationGroupPagesCache(app);

  r.get("/api/v2/notifications", async (event) => {
    const viewer = requireUser(app, event, ...READ);
    const p = await readAppParams(app, event);
    const expand = expandOf(p);
    const page = pageParams(p, 40, 80);
    const { groups, cursors } = listNotificationGroupsCached(app, viewer.account.id, filterOf(p), groupedTypesOf(p.strArray("grouped_types")), page);
    setLinkHeader(app, event, p, {
      cursors,
      limit: page.limit,
      nextAlways: true,
      keep: ["types", "exclude_types", "grouped_types", "include_filtered"],
    });
    return jsonText(event, toApiGroupedNotificationsJson(app, groups, viewer.account.id, expand));
  });

  // Counts groups, not notifications, past the `notifications` marker, capped at `limit`.
  r.get("/api/v2/notifications/unread_count", async (event) => {
    const viewer = requireUser(app, event, ...READ);
    const p = await readAppParams(app, event);
    const { limit } = pageParams(p, 100, 1000);
    return { count: unreadNotificationGroupCount(app, viewer.account.id, filterOf(p), groupedTypesOf(p.strArray("grouped_types")), limit) };
  });

  // Undocumented, as in Mastodon: the same as v1's clear.
  r.post("/api/v2/notifications/clear", (event) => {
    const viewer = requireUser(app, event, ...WRITE);
    clearNotifications(app, viewer.account.id);
    return {};
  });

  r.get("/api/v2/notifications/:group_key", (event) => {
    const viewer = requireUser(app, event, ...READ);
    const key = groupKeyOf(event);
    if (!key) throw notFound();
    const group = getNotificationGroup(app, viewer.account.id, key);
    return jsonText(event, toApiGroupedNotificationsJson(app, [group], viewer.account.id));
  });

  r.post("/api/v2/notifications/:group_key/dismiss", (event) => {
    const viewer = requireUser(app, event, ...WRITE);
    const key = groupKeyOf(event);
    if (key) dismissNotificationGroup(app, viewer.account.id, key);
    return {};
  });

  r.get("/api/v2/notifications/:group_key/accounts", async (event) => {
    const viewer = requireUser(app, event, ...READ);
    const p = await readAppParams(app, event);
    const page = pageParams(p, 40, 80);
    const key = groupKeyOf(event);
    // An unknown group has no accounts (Mastodon answers an empty list, not 404).
    const rows = key ? listNotificationGroupAccounts(app, viewer.account.id, key, page) : [];
    const { accounts, cursors } = accountsOfPage(app, rows.map((x) => ({ cursor: x.id, accountId: x.fromAccountId })));
    setLinkHeader(app, event, p, { cursors, limit: page.limit });
    return toApiAccounts(app, accounts);
  });
}
