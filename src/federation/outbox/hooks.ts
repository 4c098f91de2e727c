// Outgoing federation, as services see it: each function is called by a service inside its
// transaction, right where the local change happens, and enqueues the jobs that will build and
// deliver the activity. Every hook does nothing unless a local actor acts and someone remote
// is concerned, so the inbox can call the same services without echoing activities back.
import type { App } from "../../app.ts";
import type { Account } from "../../storage/accounts.ts";
import type { Block } from "../../storage/blocks.ts";
import type { FollowRecord } from "../../storage/follows.ts";
import type { Status } from "../../storage/statuses.ts";

/** A new local status or boost: Create(Note) / Announce to its audience. */
export function onStatusCreated(_app: App, _status: Status): void {}

/** A local status was edited: Update(Note). */
export function onStatusUpdated(_app: App, _status: Status): void {}

/**
 * A local status or boost is about to be deleted (called before the row goes, while its
 * mentions, boosts and favourites still say who must hear of it): Delete / Undo(Announce).
 */
export function onStatusDeleting(_app: App, _status: Status): void {}

/** A local account favourited a remote status: Like. */
export function onFavourited(_app: App, _favouriteId: string, _accountId: string, _status: Status): void {}

/** Undo(Like), called before the favourite row is deleted. */
export function onUnfavourited(_app: App, _favouriteId: string, _accountId: string, _status: Status): void {}

/** A local account asked to follow a remote one (the request row exists): Follow. */
export function onFollowRequested(_app: App, _record: FollowRecord): void {}

/** A local account unfollowed (or withdrew its request to) a remote one: Undo(Follow). */
export function onUnfollowed(_app: App, _record: FollowRecord): void {}

/** A local account accepted a remote follower: Accept(Follow). */
export function onFollowAccepted(_app: App, _record: FollowRecord): void {}

/** A local account rejected a remote follow request, or removed a remote follower: Reject(Follow). */
export function onFollowRejected(_app: App, _record: FollowRecord): void {}

/** A local account blocked a remote one: Block. */
export function onBlocked(_app: App, _block: Block): void {}

/** Undo(Block), called before the block row is deleted. */
export function onUnblocked(_app: App, _block: Block): void {}

/** A local profile changed: Update(Person) to followers and recent contacts. */
export function onProfileUpdated(_app: App, _account: Account): void {}

/** A local account pinned / unpinned one of its statuses: Add / Remove on its featured collection. */
export function onPinChanged(_app: App, _kind: "Add" | "Remove", _account: Account, _status: Status): void {}

/** A report about a remote account that the reporter asked to forward: Flag from the instance actor. */
export function onReportForwarded(_app: App, _reportId: string): void {}
