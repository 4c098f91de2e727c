// https://docs.joinmastodon.org/entities/GroupedNotificationsResults/ and NotificationGroup,
// written as JSON text from the cached account and status texts, like the v1 list.
import type { App } from "../app.ts";
import { readSnapshot } from "../storage/read-snapshot.ts";
import type { Id } from "../lib/ids.ts";
import type { NotificationGroup } from "../storage/notification-groups.ts";
import { findLiveStatusesCached } from "../storage/status-cache.ts";
import { type EmbeddedAccount, embeddedAccounts } from "./account.ts";
import { isoTime } from "../lib/iso-time.ts";
import { hasReport, loadReports, type PageReports, reportOf, STATUS_TYPES, warningOf } from "./notification.ts";
import { accountText, toApiStatusTexts } from "./status.ts";

export type ExpandAccounts = "full" | "partial_avatars";

// REST::DedupNotificationGroupSerializer::PartialAccountSerializer
const PARTIAL_FIELDS = ["id", "acct", "locked", "bot", "url", "avatar", "avatar_static"] as const;

const statusIdOf = (g: NotificationGroup): Id | null =>
  STATUS_TYPES.has(g.notification.type) ? g.notification.statusId : null;

/**
 * GroupedNotificationsResults for `groups` (newest first): `accounts` and `statuses` hold
 * each entity once, whatever the number of groups naming it (Mastodon's
 * GroupedNotificationsPresenter). With `partial_avatars` only each group's newest sample
 * is a full account; the other samples come as `partial_accounts`. A group whose status,
 * report or every sender has gone since is left out.
 */
export function toApiGroupedNotificationsJson(app: App, groups: NotificationGroup[], viewerId: Id, expand: ExpandAccounts = "full"): string {
  return readSnapshot(app, () => {
    const accounts = embeddedAccounts(app, new Set(groups.flatMap((g) => g.sampleAccountIds)));
    const statuses = findLiveStatusesCached(app, new Set(groups.flatMap((g) => statusIdOf(g) ?? [])));
    const reports = loadReports(app, groups.map((g) => g.notification));
    const shown: { g: NotificationGroup; samples: Id[] }[] = [];
    for (const g of groups) {
      // A sender suspended since the page was built (pages are cached) is left out.
      const samples = g.sampleAccountIds.filter((id) => accounts.has(id) && accounts.get(id)!.json.suspended !== true);
      const statusId = statusIdOf(g);
      if (samples.length === 0 || (STATUS_TYPES.has(g.notification.type) && !(statusId && statuses.has(statusId)))) continue;
      if (!hasReport(g.notification, reports)) continue;
      shown.push({ g, samples });
    }

    const full = new Set<Id>();
    const partial = new Set<Id>();
    for (const { samples } of shown) {
      if (expand === "full") for (const id of samples) full.add(id);
      else full.add(samples[0]);
    }
    if (expand === "partial_avatars") for (const { samples } of shown) for (const id of samples.slice(1)) if (!full.has(id)) partial.add(id);

    const statusIds = [...new Set(shown.flatMap(({ g }) => statusIdOf(g) ?? []))];
    const texts = toApiStatusTexts(app, statusIds.map((id) => statuses.get(id)!), viewerId);

    let out = `{"accounts":[${[...full].map((id) => accountText(accounts.get(id))).join(",")}]`;
    if (expand === "partial_avatars") out += `,"partial_accounts":[${[...partial].map((id) => partialText(accounts.get(id)!)).join(",")}]`;
    out += `,"statuses":[${texts.join(",")}]`;
    out += `,"notification_groups":[${shown.map(({ g, samples }) => groupText(app, g, samples, reports)).join(",")}]}`;
    return out;
  });
}

function partialText(a: EmbeddedAccount): string {
  const out: Record<string, unknown> = {};
  for (const f of PARTIAL_FIELDS) out[f] = a.json[f];
  return JSON.stringify(out);
}

// Ids come from the database as digit strings and times from isoTime: neither needs escaping.
const idText = (id: Id) => `"${id}"`;

function groupText(app: App, g: NotificationGroup, samples: Id[], reports: PageReports): string {
  const n = g.notification;
  // most_recent_notification_id is a JSON number in Mastodon (its iOS app decodes an Int): the
  // id's digits are written as they are, never through a JS number, which would round them.
  let out = `{"group_key":${JSON.stringify(g.groupKey)},"notifications_count":${g.count},"type":${JSON.stringify(n.type)},"most_recent_notification_id":${g.mostRecentId}`;
  if (g.page) {
    out += `,"page_min_id":${idText(g.page.minId)},"page_max_id":${idText(g.mostRecentId)},"latest_page_notification_at":"${isoTime(g.page.latestAt)}"`;
  }
  out += `,"sample_account_ids":[${samples.map(idText).join(",")}]`;
  const statusId = statusIdOf(g);
  if (statusId) out += `,"status_id":${idText(statusId)}`;
  if (n.type === "admin.report") out += `,"report":${JSON.stringify(reportOf(app, n, reports))}`;
  if (n.type === "moderation_warning") out += `,"moderation_warning":${JSON.stringify(warningOf(app, n, reports))}`;
  return out + "}";
}
