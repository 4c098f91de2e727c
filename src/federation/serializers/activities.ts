// Outgoing activities (AP §5), exactly Mastodon's shapes and ids. Pure builders over rows.
import type { App } from "../../app.ts";
import type { Account } from "../../storage/accounts.ts";
import type { Block } from "../../storage/blocks.ts";
import type { FollowRecord } from "../../storage/follows.ts";
import type { Status } from "../../storage/statuses.ts";
import type { ApObject } from "../types.ts";

/** Create(Note) of a local status: id `<note id>/activity`. */
export function toApCreate(_app: App, _status: Status): ApObject {
  throw new Error("not implemented");
}
/** Update(Note) after an edit: id `<note id>#updates/<unix edit time>`. */
export function toApUpdateNote(_app: App, _status: Status): ApObject {
  throw new Error("not implemented");
}
/** Delete(Tombstone) of a local status: id `<note id>#delete`. */
export function toApDeleteNote(_app: App, _status: Status, _author: Account): ApObject {
  throw new Error("not implemented");
}
/** Announce of a boost (`boost.uri` is its id), object = the original's uri. */
export function toApAnnounce(_app: App, _boost: Status, _original: Status, _originalAuthor: Account): ApObject {
  throw new Error("not implemented");
}
/** Undo(Announce): id `<actor>#announces/<boost id>/undo`. */
export function toApUndoAnnounce(_app: App, _boost: Status, _original: Status, _originalAuthor: Account): ApObject {
  throw new Error("not implemented");
}
/** Like: id `<actor>#likes/<favourite id>`. */
export function toApLike(_app: App, _actor: Account, _favouriteId: string, _status: Status): ApObject {
  throw new Error("not implemented");
}
export function toApUndoLike(_app: App, _actor: Account, _favouriteId: string, _status: Status): ApObject {
  throw new Error("not implemented");
}
/** Follow: id = the record's stored uri. */
export function toApFollow(_app: App, _record: FollowRecord, _source: Account, _target: Account): ApObject {
  throw new Error("not implemented");
}
/** Undo(Follow): id `<actor>#follows/<record id>/undo`. */
export function toApUndoFollow(_app: App, _record: FollowRecord, _source: Account, _target: Account): ApObject {
  throw new Error("not implemented");
}
/** Accept(Follow) from the local target, embedding the Follow with its original id. */
export function toApAcceptFollow(_app: App, _record: FollowRecord, _source: Account, _target: Account): ApObject {
  throw new Error("not implemented");
}
/** Reject(Follow) from the local target. */
export function toApRejectFollow(_app: App, _record: FollowRecord, _source: Account, _target: Account): ApObject {
  throw new Error("not implemented");
}
/** Block: id = the block's stored uri. */
export function toApBlock(_app: App, _block: Block, _source: Account, _target: Account): ApObject {
  throw new Error("not implemented");
}
/** Undo(Block): id `<actor>#blocks/<block id>/undo`. */
export function toApUndoBlock(_app: App, _block: Block, _source: Account, _target: Account): ApObject {
  throw new Error("not implemented");
}
/** Update(Person) after a profile change: id `<actor>#updates/<unix>`. */
export function toApUpdateActor(_app: App, _account: Account): ApObject {
  throw new Error("not implemented");
}
/** Add / Remove of a pinned status to/from the featured collection (no id). */
export function toApFeaturedChange(_app: App, _kind: "Add" | "Remove", _account: Account, _status: Status): ApObject {
  throw new Error("not implemented");
}
/** Flag from the instance actor: object = [target actor, ...status uris]. */
export function toApFlag(_app: App, _report: { uri: string; comment: string; targetUri: string; statusUris: string[] }): ApObject {
  throw new Error("not implemented");
}
