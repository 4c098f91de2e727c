// https://docs.joinmastodon.org/methods/conversations/
import { getRouterParam } from "h3";
import type { App } from "../../../../app.ts";
import type { Router } from "../../../../http/router.ts";
import { requireUser } from "../../../auth.ts";
import { pageParams, setLinkHeader } from "../../../pagination.ts";
import { readAppParams } from "../../../params.ts";
import { listConversations, markConversation, removeConversation } from "../../../../services/direct-conversations.ts";
import { toApiConversation, toApiConversations } from "../../../../serializers/conversation.ts";

const WRITE = ["write:conversations"];

export function registerConversationsRoutes(app: App, r: Router): void {
  // Cursor: the conversation's last status id; `next` only for a full page.
  r.get("/api/v1/conversations", async (event) => {
    const viewer = requireUser(app, event, "read:statuses");
    const p = await readAppParams(app, event);
    const page = pageParams(p, 20, 40);
    const list = listConversations(app, viewer.account.id, page);
    setLinkHeader(app, event, p, { cursors: list.map((c) => c.lastStatusId!), limit: page.limit });
    return toApiConversations(app, list, viewer.account.id);
  });

  r.post("/api/v1/conversations/:id/read", (event) => {
    const viewer = requireUser(app, event, ...WRITE);
    return toApiConversation(app, markConversation(app, viewer.account.id, getRouterParam(event, "id"), false), viewer.account.id);
  });

  // Mastodon 4.2 (undocumented there; part of the seed).
  r.post("/api/v1/conversations/:id/unread", (event) => {
    const viewer = requireUser(app, event, ...WRITE);
    return toApiConversation(app, markConversation(app, viewer.account.id, getRouterParam(event, "id"), true), viewer.account.id);
  });

  r.delete("/api/v1/conversations/:id", (event) => {
    const viewer = requireUser(app, event, ...WRITE);
    removeConversation(app, viewer.account.id, getRouterParam(event, "id"));
    return {};
  });
}
