// Remote statuses in and out of the database (AP §5.1-5.3): the inbox's Create/Update/Delete
// and resolve/statuses.ts both land here. Storage goes through services/statuses.ts
// (persistStatus, deleteStatus) like local posts.
import type { App } from "../app.ts";
import type { Account } from "../storage/accounts.ts";
import type { Status } from "../storage/statuses.ts";
import type { ParsedNote } from "./parse/note.ts";

export interface RemoteStatusContext {
  /** The local account whose personal inbox received it (it may then see it: silent mention). */
  recipient?: Account;
  /** Fetched on purpose (search, thread, boost): skips the inbox acceptance filter (AP §4.3). */
  fetched?: boolean;
}

/**
 * Stores a remote status: the author is `author` (the note's attributedTo must be it); mentions
 * and the parent are resolved (unknown parent fetched), hashtags and emojis linked, visibility
 * from the addressing. Returns the status (the existing one when the uri is known), or
 * undefined when it is refused (tombstoned, acceptance filter, foreign origin).
 */
export async function createRemoteStatus(_app: App, _note: ParsedNote, _author: Account, _ctx: RemoteStatusContext = {}): Promise<Status | undefined> {
  throw new Error("createRemoteStatus: not implemented");
}

/** Applies an Update of a known remote status (explicit edit keeps history). Unknown: like Create. */
export async function updateRemoteStatus(_app: App, _note: ParsedNote, _author: Account): Promise<Status | undefined> {
  throw new Error("updateRemoteStatus: not implemented");
}

/** A Delete of a remote status by its author: removes it and records a tombstone. */
export function deleteRemoteStatus(_app: App, _uri: string, _actor: Account): void {
  throw new Error("deleteRemoteStatus: not implemented");
}
