// https://docs.joinmastodon.org/entities/ScheduledStatus/ (entities-core.md "ScheduledStatus").
import type { App } from "../app.ts";
import { isoTime } from "../lib/iso-time.ts";
import { findMediaByScheduledIds } from "../storage/media-attachments.ts";
import type { ScheduledStatus } from "../storage/scheduled-statuses.ts";
import { type ApiMediaAttachment, toApiMediaAttachment } from "./media-attachment.ts";

export interface ApiScheduledPoll {
  options: string[];
  expires_in: number;
  multiple: boolean;
  hide_totals: boolean;
}

/** The creation parameters under Mastodon's names; the ones it always blanks are blank here too. */
export interface ApiScheduledParams {
  text: string | null;
  poll: ApiScheduledPoll | null;
  media_ids: string[] | null;
  sensitive: boolean | null;
  spoiler_text: string | null;
  visibility: string | null;
  scheduled_at: null;
  in_reply_to_id: string | null;
  language: string | null;
  application_id: string | null;
  idempotency: null;
  with_rate_limit: false;
  allowed_mentions: null;
}

export interface ApiScheduledStatus {
  id: string;
  scheduled_at: string;
  params: ApiScheduledParams;
  media_attachments: ApiMediaAttachment[];
}

const strOrNull = (v: unknown): string | null => (typeof v === "string" ? v : null);

/** A poll as the statuses route parsed it ({options, expiresIn, multiple, hideTotals}); anything else is none. */
function pollOf(v: unknown): ApiScheduledPoll | null {
  if (typeof v !== "object" || v === null) return null;
  const p = v as Record<string, unknown>;
  if (!Array.isArray(p.options)) return null;
  return {
    options: p.options.map(String),
    expires_in: Number(p.expiresIn) || 0,
    multiple: p.multiple === true,
    hide_totals: p.hideTotals === true,
  };
}

/**
 * Mastodon stores and shows in_reply_to_id and application_id as JSON numbers; ids here are
 * strings (beyond 2^53 a number loses digits, and masto.js types them as strings).
 */
function paramsOf(s: ScheduledStatus): ApiScheduledParams {
  const p = s.params;
  return {
    text: strOrNull(p.text),
    poll: pollOf(p.poll),
    media_ids: Array.isArray(p.mediaIds) ? p.mediaIds.map(String) : null,
    sensitive: typeof p.sensitive === "boolean" ? p.sensitive : null,
    spoiler_text: strOrNull(p.spoilerText),
    visibility: strOrNull(p.visibility),
    scheduled_at: null,
    in_reply_to_id: strOrNull(p.inReplyToId) || null,
    language: strOrNull(p.language),
    application_id: s.applicationId,
    idempotency: null,
    with_rate_limit: false,
    allowed_mentions: null,
  };
}

/** A page of scheduled posts; their reserved media in one query. */
export function toApiScheduledStatuses(app: App, list: ScheduledStatus[]): ApiScheduledStatus[] {
  const media = findMediaByScheduledIds(app.db, list.map((s) => s.id));
  return list.map((s) => ({
    id: s.id,
    scheduled_at: isoTime(s.scheduledAt),
    params: paramsOf(s),
    media_attachments: (media.get(s.id) ?? []).map((m) => toApiMediaAttachment(app, m)),
  }));
}

export function toApiScheduledStatus(app: App, s: ScheduledStatus): ApiScheduledStatus {
  return toApiScheduledStatuses(app, [s])[0];
}
