// https://docs.joinmastodon.org/methods/custom_emojis/
import type { App } from "../../../../app.ts";
import type { Router } from "../../../../http/router.ts";
import { cachePublicAlways } from "../../../headers.ts";
import { getPickerEmojis } from "../../../../services/custom-emojis.ts";
import { toApiCustomEmojis } from "../../../../serializers/custom-emoji.ts";

export function registerCustomEmojisRoutes(app: App, r: Router): void {
  // Public even when the instance disallows anonymous API access (apps load it before login),
  // but then not cached publicly (roost seed rule; Mastodon's vary_by/cache_even_if_authenticated).
  r.get("/api/v1/custom_emojis", (event) => {
    if (app.config.publicApi) cachePublicAlways(event);
    return toApiCustomEmojis(app, getPickerEmojis(app), { withCategory: true });
  });
}
