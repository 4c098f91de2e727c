import type { Id } from "../lib/ids.ts";

// Bus topics, named like Mastodon's Redis channels (streaming.md §8) so the two read alike.
// A stream subscription listens to one or more of them (streaming/channels.ts).

export const topics = {
  /** The home feed: update, delete, status.update, filters_changed. */
  home: (accountId: Id) => `timeline:${accountId}`,
  /** notification, notifications_merged. */
  notifications: (accountId: Id) => `timeline:${accountId}:notifications`,
  list: (listId: Id) => `timeline:list:${listId}`,
  /** conversation events of the account's direct conversations. */
  direct: (accountId: Id) => `timeline:direct:${accountId}`,
  /** `public`, `public:local`, `public:remote`, each with an optional `:media`. */
  public: (scope: "all" | "local" | "remote", media = false) =>
    `timeline:public${scope === "all" ? "" : `:${scope}`}${media ? ":media" : ""}`,
  /** `name`: the normalised tag name (lib/tags.ts normalizeTag), as statuses_tags links it. */
  hashtag: (name: string, local = false) => `timeline:hashtag:${name}${local ? ":local" : ""}`,
  /** Announcements reach every connected user stream. */
  announcements: () => "timeline:announcements",
  /** `kill` when the token dies (revoked, expired, owner disabled). */
  accessToken: (tokenId: Id) => `timeline:access_token:${tokenId}`,
  /** `kill` for every connection of the account; filters_changed for filter caches. */
  system: (accountId: Id) => `timeline:system:${accountId}`,
};
