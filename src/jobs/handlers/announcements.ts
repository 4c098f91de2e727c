import type { App } from "../../app.ts";
import { PermanentJobError } from "../../errors.ts";
import { parseId } from "../../lib/ids.ts";
import { broadcastAnnouncement, expireAnnouncement, publishDueAnnouncement } from "../../services/announcements.ts";

// The announcements' jobs (services/announcements.ts): database writes and bus messages only,
// so each is transactional (a batch of them shares one commit).

function idOf(payload: { id?: unknown }, job: string) {
  const id = parseId(payload?.id);
  if (!id) throw new PermanentJobError(`${job} without a valid id`);
  return id;
}

function atOf(payload: { at?: unknown }, job: string): number {
  if (typeof payload?.at !== "number" || !Number.isFinite(payload.at)) throw new PermanentJobError(`${job} without a valid time`);
  return payload.at;
}

/** `announcement.publish` {id, at}: enqueued for `scheduled_at`. */
export function handleAnnouncementPublish(app: App, payload: { id?: unknown; at?: unknown }): void {
  publishDueAnnouncement(app, idOf(payload, "announcement.publish"), atOf(payload, "announcement.publish"));
}

/** `announcement.expire` {id, at}: enqueued for `ends_at`. */
export function handleAnnouncementExpire(app: App, payload: { id?: unknown; at?: unknown }): void {
  expireAnnouncement(app, idOf(payload, "announcement.expire"), atOf(payload, "announcement.expire"));
}

/** `announcement.broadcast` {id, event}: a change staff made, told to the live streams. */
export function handleAnnouncementBroadcast(app: App, payload: { id?: unknown; event?: unknown }): void {
  broadcastAnnouncement(app, idOf(payload, "announcement.broadcast"), payload?.event === "delete" ? "delete" : "announcement");
}
