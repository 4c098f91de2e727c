import type { App } from "../../app.ts";
import type { Id } from "../../lib/ids.ts";
import { fetchStatusCard } from "../../services/preview-cards.ts";

/** `card.fetch`, enqueued after a post with a link and no content warning is saved. */
export async function handleCardFetch(app: App, payload: { statusId: Id }): Promise<void> {
  await fetchStatusCard(app, String(payload.statusId));
}
