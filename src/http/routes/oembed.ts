// https://docs.joinmastodon.org/methods/oembed/ : oEmbed for our own public and unlisted posts.
import type { App } from "../../app.ts";
import type { Router } from "../router.ts";
import { requireEmbeddableStatus } from "../../services/oembed.ts";
import { toOEmbed } from "../../serializers/oembed.ts";
import { cachePublicAlways } from "../headers.ts";
import { readAppParams } from "../params.ts";

/** maxwidth / maxheight: positive integers, else ignored (Mastodon passes them through `to_i`). */
const dimension = (n: number | undefined) => (n !== undefined && Number.isInteger(n) && n > 0 && n <= 10_000 ? n : undefined);

export function registerOEmbedRoutes(app: App, r: Router): void {
  r.get("/api/oembed", async (event) => {
    const p = await readAppParams(app, event);
    const { status, account } = requireEmbeddableStatus(app, p.str("url"));
    // The same for everyone: cacheable (a deleted or hidden post is gone within minutes).
    cachePublicAlways(event);
    return toOEmbed(app, status, account, { width: dimension(p.int("maxwidth")), height: dimension(p.int("maxheight")) });
  });
}
