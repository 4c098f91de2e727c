// https://docs.joinmastodon.org/entities/FeaturedTag/ (entities-core.md "FeaturedTag").
import type { App } from "../app.ts";
import { accountTagUrl } from "../lib/urls.ts";
import type { Account } from "../storage/accounts.ts";
import type { FeaturedTag } from "../storage/featured-tags.ts";

export interface ApiFeaturedTag {
  id: string;
  name: string;
  url: string;
  /** A number in a string, as Mastodon sends it. */
  statuses_count: string;
  /** The day of the latest use (`YYYY-MM-DD`). */
  last_status_at: string | null;
}

/** A local owner's tags link to its profile filtered by the tag; a remote one's to its href. */
export function toApiFeaturedTags(app: App, owner: Account, featured: FeaturedTag[]): ApiFeaturedTag[] {
  return featured.map((f) => ({
    id: f.id,
    name: f.name,
    url: f.url ?? accountTagUrl(app.baseUrl, owner.domain === null ? owner.username : `${owner.username}@${owner.domain}`, f.tag.name),
    statuses_count: String(f.statusesCount),
    last_status_at: f.lastStatusAt === null ? null : new Date(f.lastStatusAt).toISOString().slice(0, 10),
  }));
}
