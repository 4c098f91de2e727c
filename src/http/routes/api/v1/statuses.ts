// https://docs.joinmastodon.org/methods/statuses/ — create, show, multi-get, edit, delete,
// context, history and source. Interactions (favourite, boost, pin...) are in status-interactions.ts.
import { getRouterParam } from "h3";
import type { App } from "../../../../app.ts";
import type { Router } from "../../../../http/router.ts";
import { toApiStatus, toApiStatuses } from "../../../../serializers/status.ts";
import { toApiStatusEdits, toApiStatusSource } from "../../../../serializers/status-edit.ts";
import { toApiScheduledStatus } from "../../../../serializers/scheduled-status.ts";
import { requestRemoteMediaCopy } from "../../../../services/remote-media-requests.ts";
import { scheduleStatus } from "../../../../services/scheduled-statuses.ts";
import { getStatusContext } from "../../../../services/status-context.ts";
import { asyncRefreshHeader, refreshThread, refreshThreadOf } from "../../../../services/thread-refresh.ts";
import { editStatus, listRevisions } from "../../../../services/status-edits.ts";
import {
  createStatus,
  deleteStatus,
  getVisibleStatuses,
  requireOwnStatus,
  requireVisibleStatus,
  type StatusInput,
  validateStatusLength,
} from "../../../../services/statuses.ts";
import { prefetchMentions } from "../../../../federation/resolve/mentions.ts";
import { optionalUser, requireToken, requireUser } from "../../../auth.ts";
import { cachePublicIfAnonymous } from "../../../headers.ts";
import { type Params, readAppParams } from "../../../params.ts";
import { type PollInput, validatePoll } from "../../../../services/poll-rules.ts";

const READ = ["read", "read:statuses"];
const WRITE = ["write", "write:statuses"];

/**
 * `poll[options][]`, `poll[expires_in]`, `poll[multiple]`, `poll[hide_totals]` (form or JSON
 * object); undefined when no poll was sent (an empty hash is none, as Rails' `present?`). The
 * rules are checked by the service; only a missing `expires_in` is answered here, since a
 * PollInput always has one.
 */
function readPoll(app: App, p: Params): PollInput | undefined {
  const poll = p.obj("poll");
  if (!poll || Object.keys(poll.raw).length === 0) return undefined;
  const params = {
    // Beyond any limit already; the cap only bounds the work on a hostile body.
    options: poll.strArray("options", { max: 1000 }) ?? [],
    expiresIn: poll.int("expires_in") ?? null,
    multiple: poll.bool("multiple") ?? false,
    hideTotals: poll.bool("hide_totals") ?? false,
  };
  if (params.expiresIn === null) validatePoll(app, params);
  return { ...params, expiresIn: params.expiresIn! };
}

function readStatusInput(app: App, p: Params): StatusInput {
  return {
    text: p.str("status"),
    spoilerText: p.str("spoiler_text"),
    sensitive: p.bool("sensitive"),
    visibility: p.str("visibility")?.trim() || undefined,
    language: p.str("language"),
    inReplyToId: p.str("in_reply_to_id")?.trim(),
    mediaIds: p.strArray("media_ids"),
    poll: readPoll(app, p),
    scheduledAt: p.str("scheduled_at")?.trim() || undefined,
  };
}

export function registerStatusesRoutes(app: App, r: Router): void {
  r.post("/api/v1/statuses", async (event) => {
    const p = await readAppParams(app, event);
    const viewer = requireUser(app, event, ...WRITE);
    validateStatusLength(app, p.str("status") ?? "", p.str("spoiler_text") ?? "");
    await prefetchMentions(app, p.str("status") ?? "");
    const input = readStatusInput(app, p);
    const opts = { applicationId: viewer.token.applicationId, idempotencyKey: event.req.headers.get("idempotency-key") ?? undefined };
    // With `scheduled_at` the answer is a ScheduledStatus (or, for a repeated Idempotency-Key
    // whose post has gone out since, that Status).
    if (input.scheduledAt !== undefined) {
      const r = scheduleStatus(app, viewer, input, opts);
      return "scheduled" in r ? toApiScheduledStatus(app, r.scheduled) : toApiStatus(app, r.published, viewer.account.id);
    }
    const status = createStatus(app, viewer, input, opts);
    // Replying to a remote post completes its thread in the background (issue 19).
    refreshThreadOf(app, viewer.account.id, status.inReplyToId);
    return toApiStatus(app, status, viewer.account.id);
  });

  r.get("/api/v1/statuses", async (event) => {
    const p = await readAppParams(app, event);
    const viewer = optionalUser(app, event, ...READ);
    const ids = p.strArray("id") ?? [];
    const statuses = getVisibleStatuses(app, viewer?.account.id ?? null, ids);
    return toApiStatuses(app, statuses, viewer?.account.id ?? null);
  });

  r.get("/api/v1/statuses/:id", (event) => {
    const viewer = optionalUser(app, event, ...READ);
    const status = requireVisibleStatus(app, viewer?.account.id ?? null, getRouterParam(event, "id"));
    cachePublicIfAnonymous(event, !!viewer);
    if (viewer) requestRemoteMediaCopy(app, status);
    return toApiStatus(app, status, viewer?.account.id ?? null);
  });

  r.put("/api/v1/statuses/:id", async (event) => {
    const p = await readAppParams(app, event);
    const viewer = requireUser(app, event, ...WRITE);
    const status = requireOwnStatus(app, viewer.account.id, getRouterParam(event, "id"));
    validateStatusLength(app, p.str("status") ?? "", p.str("spoiler_text") ?? "");
    await prefetchMentions(app, p.str("status") ?? "");
    const updated = editStatus(app, viewer, status, {
      text: p.str("status"),
      spoilerText: p.str("spoiler_text"),
      sensitive: p.bool("sensitive"),
      language: p.str("language"),
      mediaIds: p.strArray("media_ids"),
      mediaAttributes: (p.list("media_attributes") ?? []).map((a) => ({ id: a.str("id") ?? "", description: a.str("description"), focus: a.str("focus") })),
      // The request is the whole new state: no `poll` removes it.
      poll: readPoll(app, p) ?? null,
    });
    return toApiStatus(app, updated, viewer.account.id);
  });

  // The response carries `text` instead of `content`, so the client can redraft the post; its
  // media stay a day for that, unless `delete_media` (4.4).
  r.delete("/api/v1/statuses/:id", async (event) => {
    const p = await readAppParams(app, event);
    const viewer = requireUser(app, event, ...WRITE);
    const status = requireOwnStatus(app, viewer.account.id, getRouterParam(event, "id"));
    const body = toApiStatus(app, status, viewer.account.id, { source: true });
    deleteStatus(app, status, { deleteMedia: p.bool("delete_media") ?? false });
    return body;
  });

  r.get("/api/v1/statuses/:id/context", (event) => {
    const viewer = optionalUser(app, event, ...READ);
    const viewerId = viewer?.account.id ?? null;
    const status = requireVisibleStatus(app, viewerId, getRouterParam(event, "id"));
    const ctx = getStatusContext(app, viewerId, status);
    cachePublicIfAnonymous(event, !!viewer);
    // Answers with what is stored; the rest of a remote thread comes from a job (Mastodon 4.5).
    const header = asyncRefreshHeader(refreshThread(app, viewerId, status, [...ctx.ancestors, ...ctx.descendants]));
    if (header) event.res.headers.set("mastodon-async-refresh", header);
    // One serializer pass for both lists keeps the page at a fixed number of queries.
    const all = toApiStatuses(app, [...ctx.ancestors, ...ctx.descendants], viewerId);
    return { ancestors: all.slice(0, ctx.ancestors.length), descendants: all.slice(ctx.ancestors.length) };
  });

  r.get("/api/v1/statuses/:id/history", (event) => {
    const viewer = optionalUser(app, event, ...READ);
    const status = requireVisibleStatus(app, viewer?.account.id ?? null, getRouterParam(event, "id"));
    cachePublicIfAnonymous(event, !!viewer);
    return toApiStatusEdits(app, status, listRevisions(app, status));
  });

  r.get("/api/v1/statuses/:id/source", (event) => {
    const viewer = requireToken(app, event, ...READ);
    const status = requireVisibleStatus(app, viewer.account?.id ?? null, getRouterParam(event, "id"));
    return toApiStatusSource(status);
  });
}
