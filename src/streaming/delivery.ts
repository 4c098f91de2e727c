import type { App } from "../app.ts";
import type { BusMessage } from "../events/bus.ts";
import type { Id } from "../lib/ids.ts";
import { findCurrentAnnouncement } from "../services/announcements.ts";
import { findConversation } from "../services/direct-conversations.ts";
import type { Status } from "../services/domain-types.ts";
import { findNotification } from "../services/notification-reads.ts";
import { findLiveStatuses, viewersHidingStatus } from "../services/status-filter.ts";
import { toApiAnnouncementReactionEvent, toApiAnnouncements } from "../serializers/announcement.ts";
import { toApiConversation } from "../serializers/conversation.ts";
import { toApiNotification } from "../serializers/notification.ts";
import { toApiStatusTextsForViewers, toApiStatusTexts } from "../serializers/status.ts";
import { type KeywordVerdict, keywordVerdicts } from "./keyword-filters.ts";
import type { Subscription } from "./session.ts";

// Turns bus messages into the payloads each subscription receives (streaming.md §4.2, §6, §7).
// The hub hands over everything published in one turn of the event loop, so a status that
// reaches many subscribers is read and rendered once: anonymously for public and hashtag
// streams, and per owner for home and list streams (one page read and one viewer-flags query
// for all the turn's statuses and viewers, serializers/status.ts toApiStatusTextsForViewers;
// viewers who see a status alike share one text). Every status event then passes the same
// read-time rule as the timelines (services/status-filter.ts viewersHidingStatus) and the
// viewer's keyword filters (keyword-filters.ts).

export interface DeliveryJob {
  sub: Subscription;
  message: BusMessage;
}

/** Writes one event to a subscription; `payload` undefined for events without one. */
export type Writer = (sub: Subscription, event: string, payload: string | undefined) => void;

const isStatusEvent = (m: BusMessage) => (m.event === "update" || m.event === "status.update") && m.statusId !== undefined;

function add<K, V>(map: Map<K, Set<V>>, key: K, value: V): void {
  let set = map.get(key);
  if (!set) map.set(key, (set = new Set()));
  set.add(value);
}

/** Renders and writes `jobs` in order; a job whose payload cannot be built is skipped (logged). */
export function deliver(app: App, jobs: DeliveryJob[], write: Writer): void {
  const statusIds = new Set<Id>();
  for (const j of jobs) if (isStatusEvent(j.message)) statusIds.add(j.message.statusId!);
  const statuses = statusIds.size ? findLiveStatuses(app, statusIds) : new Map<Id, Status>();

  // Who needs which rendering of which status.
  const perViewer = new Map<Id, Set<Id>>();
  const anonymous = new Map<Id, Set<Id>>();
  const viewers = new Map<Id, Set<Id>>();
  for (const j of jobs) {
    if (!isStatusEvent(j.message) || !statuses.has(j.message.statusId!)) continue;
    const id = j.message.statusId!;
    const viewer = j.sub.session.viewer.accountId;
    add(j.sub.channel.kind === "public" ? anonymous : perViewer, id, viewer);
    add(viewers, id, viewer);
  }
  const r: Rendered = { home: new Map(), public: new Map(), texts: new Map(), anonymous: new Map(), hiding: new Map() };
  // The viewers' keyword filters, per status and filter context ("home" or "public").
  for (const [id, vs] of perViewer) r.home.set(id, keywordVerdicts(app, statuses.get(id)!, vs, "home"));
  for (const [id, vs] of anonymous) r.public.set(id, keywordVerdicts(app, statuses.get(id)!, vs, "public"));
  // Every per-viewer rendering of the turn from one page read.
  if (perViewer.size) {
    const viewersOf = new Map([...perViewer].map(([id, vs]) => [id, [...vs]]));
    r.texts = toApiStatusTextsForViewers(app, [...perViewer.keys()].map((id) => statuses.get(id)!), viewersOf);
  }
  if (anonymous.size) {
    const list = [...anonymous.keys()].map((id) => statuses.get(id)!);
    toApiStatusTexts(app, list, null).forEach((text, i) => r.anonymous.set(list[i].id, text));
  }
  for (const [id, vs] of viewers) r.hiding.set(id, viewersHidingStatus(app, statuses.get(id)!, vs));

  // Announcement events are the same for everyone: rendered once per message.
  const shared = new Map<BusMessage, string | null>();
  for (const j of jobs) {
    const { sub, message } = j;
    let payload: string | undefined | null;
    try {
      if (isStatusEvent(message)) payload = statusPayload(sub, statuses.get(message.statusId!), r);
      else if (message.announcementId !== undefined) payload = shared.has(message) ? shared.get(message)! : announcementPayload(app, message, shared);
      else payload = otherPayload(app, sub, message);
    } catch (err) {
      app.log.error("streaming: rendering an event failed", { event: message.event, err });
      continue;
    }
    if (payload !== null) write(sub, message.event, payload);
  }
}

/** A delivery turn's renderings and verdicts, by status id (then viewer). */
interface Rendered {
  home: Map<Id, Map<Id, KeywordVerdict>>;
  public: Map<Id, Map<Id, KeywordVerdict>>;
  texts: Map<Id, Map<Id, string>>;
  anonymous: Map<Id, string>;
  hiding: Map<Id, Set<Id>>;
}

/** The status payload for one subscriber, or null when the event does not reach them. */
function statusPayload(sub: Subscription, status: Status | undefined, r: Rendered): string | null {
  if (!status) return null; // deleted before delivery
  const viewer = sub.session.viewer.accountId;
  if (r.hiding.get(status.id)?.has(viewer)) return null;
  const isPublic = sub.channel.kind === "public";
  const verdict = (isPublic ? r.public : r.home).get(status.id)?.get(viewer) ?? { action: "show" };
  if (verdict.action === "hide") return null;
  if (!isPublic) return r.texts.get(status.id)?.get(viewer) ?? null;
  const text = r.anonymous.get(status.id);
  if (text === undefined) return null;
  // Anonymous payloads get the viewer's filter results added (Mastodon's streaming server does so).
  return verdict.action === "warn" ? text.slice(0, -1) + `,"filtered":${JSON.stringify(verdict.filtered)}}` : text;
}

/**
 * `announcement` and `announcement.reaction` published by id (services/stream-events.ts),
 * rendered anonymously as Mastodon's workers do; null when the announcement is no longer current.
 */
function announcementPayload(app: App, m: BusMessage, shared: Map<BusMessage, string | null>): string | null {
  let out: string | null = null;
  const a = findCurrentAnnouncement(app, m.announcementId!);
  if (a && m.event === "announcement") out = JSON.stringify(toApiAnnouncements(app, [a], null)[0]);
  else if (a && m.event === "announcement.reaction" && m.reactionName !== undefined) {
    out = JSON.stringify(toApiAnnouncementReactionEvent(app, a.id, m.reactionName));
  }
  shared.set(m, out);
  return out;
}

/** Payloads of the other events; null when the entity is gone or hidden. */
function otherPayload(app: App, sub: Subscription, m: BusMessage): string | undefined | null {
  const viewer = sub.session.viewer.accountId;
  switch (m.event) {
    case "delete":
      return m.statusId ?? null;
    case "notification": {
      const n = m.notificationId ? findNotification(app, viewer, m.notificationId) : undefined;
      const entity = n && toApiNotification(app, n, viewer);
      return entity ? JSON.stringify(entity) : null;
    }
    case "conversation": {
      const c = m.conversationId ? findConversation(app, viewer, m.conversationId) : undefined;
      return c ? JSON.stringify(toApiConversation(app, c, viewer)) : null;
    }
    case "filters_changed":
      return undefined;
    case "notifications_merged":
    case "announcement":
    case "announcement.reaction":
    case "announcement.delete":
      return m.payload ?? null;
    default:
      return null;
  }
}
