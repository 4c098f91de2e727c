// Featured hashtags in ActivityPub, as Mastodon shapes them: the actor's `featuredTags`
// collection (ActivityPub::CollectionsController, id `tags`: an unordered Collection of
// Hashtag objects) and the Add / Remove its owner sends when the set changes
// (ActivityPub::AddHashtagSerializer: the target is the `featured` collection, and receivers
// tell hashtags from pinned posts by the object's type).
import type { App } from "../../app.ts";
import { accountTagUrl } from "../../lib/urls.ts";
import type { Account } from "../../storage/accounts.ts";
import type { FeaturedTag } from "../../storage/featured-tags.ts";
import type { ApObject } from "../types.ts";
import { ACTIVITY_CONTEXT, BASIC_CONTEXT, withContext } from "./context.ts";

/** ActivityPub::HashtagSerializer of a FeaturedTag: href is the profile filtered by the tag. */
export function toApFeaturedHashtag(app: App, account: Account, f: FeaturedTag): ApObject {
  return { type: "Hashtag", href: f.url ?? accountTagUrl(app.baseUrl, account.username, f.tag.name), name: `#${f.name}` };
}

/** The `featuredTags` collection of a local actor. */
export function toApFeaturedTagsCollection(app: App, account: Account, featured: FeaturedTag[]): ApObject {
  return withContext(BASIC_CONTEXT, {
    id: account.featuredTagsUrl ?? `${account.uri}/collections/tags`,
    type: "Collection",
    totalItems: featured.length,
    items: featured.map((f) => toApFeaturedHashtag(app, account, f)),
  });
}

/** Add / Remove of a featured hashtag (no id, as Mastodon's). */
export function toApFeaturedTagChange(app: App, kind: "Add" | "Remove", account: Account, f: FeaturedTag): ApObject {
  return withContext(ACTIVITY_CONTEXT, {
    type: kind,
    actor: account.uri,
    target: account.featuredUrl ?? `${account.uri}/collections/featured`,
    object: toApFeaturedHashtag(app, account, f),
  });
}
