// PLACEHOLDER: signatures fixed; implemented by the timelines work package.
import type { App } from "../app.ts";
import type { Id } from "../lib/ids.ts";

/** Removes a target account's posts and boosts from the owner's home and list feeds (block, mute, unfollow). */
export function removeAccountFromFeeds(_app: App, _ownerAccountId: Id, _targetAccountId: Id): void {}
