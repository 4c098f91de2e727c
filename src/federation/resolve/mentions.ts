// Local posts that mention remote handles: resolve them (WebFinger) before the post is saved,
// so createStatus's synchronous resolver finds them as known accounts.
import type { App } from "../../app.ts";
import { mapLimited } from "../../lib/map-limited.ts";
import { mentionHandles } from "../../lib/status-text.ts";
import { findAccountByHandle } from "../../storage/accounts.ts";
import { resolveAccountByHandle } from "./accounts.ts";

/** Parallel look-ups per post: enough for a reply to a thread, gentle on the peers. */
const CONCURRENCY = 4;
/** Handles resolved per post; a longer list of unknown handles is spam, not conversation. */
const MAX_HANDLES = 20;

/** Resolves every `@user@domain` of `text` that is not known yet; failures leave the mention as text. */
export async function prefetchMentions(app: App, text: string): Promise<void> {
  if (!text.includes("@")) return;
  const unknown = mentionHandles(text, app.config.domain)
    .filter((h) => h.domain !== null && !findAccountByHandle(app.db, h.username, h.domain))
    .slice(0, MAX_HANDLES);
  await mapLimited(unknown, CONCURRENCY, async (h) => {
    try {
      await resolveAccountByHandle(app, h.username, h.domain);
    } catch (e) {
      app.log.debug("mention not resolved", { handle: `${h.username}@${h.domain}`, err: e instanceof Error ? e.message : String(e) });
    }
  });
}
