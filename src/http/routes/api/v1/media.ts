// https://docs.joinmastodon.org/methods/media/ — upload (v1 waits for processing, v2 answers
// 202 when it takes longer than mediaSyncWaitMs), show, update and delete an upload.
import { getRouterParam, type H3Event } from "h3";
import type { App } from "../../../../app.ts";
import type { Router } from "../../../../http/router.ts";
import { toApiMediaAttachment } from "../../../../serializers/media-attachment.ts";
import { deleteUpload, requireOwnUnattachedMedia, updateUpload, uploadMedia } from "../../../../services/media-uploads.ts";
import { bearerToken, requireUser } from "../../../auth.ts";
import { readAppParams } from "../../../params.ts";
import { readUploadBody } from "../../../upload-body.ts";

const WRITE = ["write", "write:media"];

/**
 * Reads an upload body, checking a header or query token first so that no stranger's file is
 * staged (a token sent as a body parameter is checked once the body is read).
 */
async function readUpload(app: App, event: H3Event) {
  if (bearerToken(event)) requireUser(app, event, ...WRITE);
  const body = await readUploadBody(app, event, { file: app.config.maxMediaBytes, thumbnail: app.config.maxImageBytes });
  return { ...body, viewer: () => requireUser(app, event, ...WRITE) };
}

async function create(app: App, event: H3Event, waitMs: number) {
  const body = await readUpload(app, event);
  try {
    const viewer = body.viewer();
    const { media, ready } = await uploadMedia(
      app,
      viewer.account,
      { file: body.files.file, thumbnail: body.files.thumbnail, description: body.params.str("description"), focus: body.params.str("focus") },
      { waitMs },
    );
    event.res.status = ready ? 200 : 202;
    return toApiMediaAttachment(app, media);
  } finally {
    await body.discard();
  }
}

export function registerMediaRoutes(app: App, r: Router): void {
  r.post("/api/v2/media", (event) => create(app, event, app.config.mediaSyncWaitMs));
  // Deprecated, still used (Tusky before 2020, scripts): always answers once processing is done.
  r.post("/api/v1/media", (event) => create(app, event, Number.POSITIVE_INFINITY));

  r.get("/api/v1/media/:id", (event) => {
    const viewer = requireUser(app, event, ...WRITE);
    const media = requireOwnUnattachedMedia(app, viewer.account.id, getRouterParam(event, "id"));
    event.res.status = media.state === "queued" ? 206 : 200;
    return toApiMediaAttachment(app, media);
  });

  r.put("/api/v1/media/:id", async (event) => {
    const body = await readUpload(app, event);
    try {
      const viewer = body.viewer();
      const media = requireOwnUnattachedMedia(app, viewer.account.id, getRouterParam(event, "id"));
      const updated = await updateUpload(app, media, {
        thumbnail: body.files.thumbnail,
        description: body.params.str("description"),
        focus: body.params.str("focus"),
      });
      event.res.status = updated.state === "queued" ? 206 : 200;
      return toApiMediaAttachment(app, updated);
    } finally {
      await body.discard();
    }
  });

  r.delete("/api/v1/media/:id", async (event) => {
    await readAppParams(app, event);
    const viewer = requireUser(app, event, ...WRITE);
    await deleteUpload(app, viewer.account.id, getRouterParam(event, "id"));
    return {};
  });
}
