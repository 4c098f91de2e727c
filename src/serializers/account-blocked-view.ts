import type { ApiAccount } from "./account.ts";

/**
 * The reduced profile shown to someone the account blocks (seed: "the blocked view of a
 * profile is reduced"): identity stays recognisable (names, avatar) so the viewer knows whom
 * the page is about, but nothing the account wrote or counts of its activity are shown — as
 * Mastodon's web UI hides the bio, fields and posts behind a block.
 */
export function toBlockedView(a: ApiAccount): ApiAccount {
  return {
    ...a,
    note: "",
    fields: [],
    emojis: [],
    followers_count: 0,
    following_count: 0,
    statuses_count: 0,
    last_status_at: null,
  };
}
