// GET /contexts/<rootAccountId>-<conversationId>: the `context` our Notes name (FEP-7888, as
// Mastodon 4.5+ serves it): a Collection of the thread's public and unlisted posts, so a peer
// can fetch the whole conversation. Every thread without a context of its own from elsewhere
// has one (also a thread below a remote post that named none).
import type { App } from "../../app.ts";
import type { Router } from "../../http/router.ts";
import { parseId } from "../../lib/ids.ts";
import { findAccountById } from "../../storage/accounts.ts";
import { findConversations } from "../../storage/ap-objects.ts";
import { publicConversationUris } from "../../storage/conversation-items.ts";
import { BASIC_CONTEXT, withContext } from "../serializers/context.ts";
import { notFoundAp, param, requester, sendAp } from "./ap-response.ts";

const PAGE = 40;

export function registerContextRoutes(app: App, r: Router): void {
  r.get("/contexts/:key", async (event) => {
    const m = /^(\d+)-(\d+)$/.exec(param(event, "key"));
    const rootId = m && parseId(m[1]);
    const conversationId = m && parseId(m[2]);
    if (!rootId || !conversationId) throw notFoundAp();
    const conversation = findConversations(app.db, [conversationId]).get(conversationId);
    // Threads that came from elsewhere carry their own context uri; the root must match.
    if (!conversation || conversation.uri !== null || conversation.rootAccountId !== rootId) throw notFoundAp();
    const root = findAccountById(app.db, rootId);
    if (!root) throw notFoundAp();
    await requester(app, event);

    const id = `${app.baseUrl}/contexts/${rootId}-${conversationId}`;
    const after = parseId(event.url.searchParams.get("min_id") ?? "") ?? "0";
    const items = publicConversationUris(app.db, conversationId, after, PAGE);
    const page = {
      type: "CollectionPage",
      id: `${id}?page=true${after === "0" ? "" : `&min_id=${after}`}`,
      partOf: id,
      items: items.map((i) => i.uri),
      ...(items.length === PAGE ? { next: `${id}?page=true&min_id=${items[items.length - 1].id}` } : {}),
    };
    const paged = event.url.searchParams.has("page");
    const doc = paged ? page : { id, type: "Collection", attributedTo: root.uri, first: page };
    return sendAp(app, event, withContext(BASIC_CONTEXT, doc), "public");
  });
}
