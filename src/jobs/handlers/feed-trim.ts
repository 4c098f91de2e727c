import type { App } from "../../app.ts";
import { trimFeeds } from "../../services/feeds.ts";

/** Periodic: keeps each home and list feed to its newest entries. */
export function handleFeedTrim(app: App): void {
  const removed = trimFeeds(app);
  if (removed) app.log.info("trimmed feeds", { removed });
}
