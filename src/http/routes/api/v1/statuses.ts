// https://docs.joinmastodon.org/methods/statuses/ — create, show, multi-get, edit, delete,
// context, history and source. Interactions (favourite, boost, pin...) are in status-interactions.ts.
import { getRouterParam } from "h3";
import type { App } from "../../../../app.ts";
import type { Router } from "../../../../http/router.ts";
import { toApiStatus, toApiStatuses } from "../../../../serializers/status.ts";
import { toApiStatusEdits, toApiStatusSource } from "../../../../serializers/status-edit.ts";
import { getStatusContext } from "../../../../services/status-context.ts";
import { editStatus, listRevisions } from "../../../../services/status-edits.ts";
import {
  createStatus,
  deleteStatus,
  getVisibleStatuses,
  requireOwnStatus,
  requireVisibleStatus,
  type StatusInput,
} from "../../../../services/statuses.ts";
import { prefetchMentions } from "../../../../federation/resolve/mentions.ts";
import { optionalUser, requireToken, requireUser } from "../../../auth.ts";
import { cachePublicIfAnonymous } from "../../../headers.ts";
import { type Params, readAppParams } from "../../../params.ts";

const READ = ["read", "read:statuses"];
const WRITE = ["write", "write:statuses"];

/** True when a `poll[...]` hash with options was sent (JSON object or form `poll[options][]`). */
function hasPoll(p: Params): boolean {
  const poll = p.obj("poll");
  return !!poll && (poll.strArray("options")?.length ?? 0) > 0;
}

function readStatusInput(p: Params): StatusInput {
  return {
    text: p.str("status"),
    spoilerText: p.str("spoiler_text"),
    sensitive: p.bool("sensitive"),
    visibility: p.str("visibility")?.trim() || undefined,
    language: p.str("language"),
    inReplyToId: p.str("in_reply_to_id")?.trim(),
    mediaIds: p.strArray("media_ids"),
    poll: hasPoll(p),
    scheduledAt: p.str("scheduled_at")?.trim() || undefined,
  };
}

export function registerStatusesRoutes(app: App, r: Router): void {
  r.post("/api/v1/statuses", async (event) => {
    const p = await readAppParams(app, event);
    const viewer = requireUser(app, event, ...WRITE);
    await prefetchMentions(app, p.str("status") ?? "");
    const status = createStatus(app, viewer, readStatusInput(p), {
      applicationId: viewer.token.applicationId,
      idempotencyKey: event.req.headers.get("idempotency-key") ?? undefined,
    });
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
    return toApiStatus(app, status, viewer?.account.id ?? null);
  });

  r.put("/api/v1/statuses/:id", async (event) => {
    const p = await readAppParams(app, event);
    const viewer = requireUser(app, event, ...WRITE);
    const status = requireOwnStatus(app, viewer.account.id, getRouterParam(event, "id"));
    await prefetchMentions(app, p.str("status") ?? "");
    const updated = editStatus(app, viewer, status, {
      text: p.str("status"),
      spoilerText: p.str("spoiler_text"),
      sensitive: p.bool("sensitive"),
      language: p.str("language"),
      mediaIds: p.strArray("media_ids"),
      mediaAttributes: (p.list("media_attributes") ?? []).map((a) => ({ id: a.str("id") ?? "", description: a.str("description"), focus: a.str("focus") })),
      poll: hasPoll(p),
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
