import type { App } from "../app.ts";
import { tx } from "../db/db.ts";
import { idAt } from "../lib/ids.ts";
import type { Account } from "../storage/accounts.ts";
import { findReblog, findStatusById, findStatusByUri, type Status, type Visibility } from "../storage/statuses.ts";
import { storeBoost } from "./status-interactions.ts";

// Boosts by remote accounts (an incoming Announce, AP §5.7). Local boosts go through
// reblogStatus, which applies a local user's rules (default privacy, silencing); a remote boost
// brings its own id, time and visibility.

export interface RemoteBoost {
  /** The Announce's id. */
  uri: string;
  /** The Announce's `published` (ms): the boost's time and id (Mastodon's id_at). */
  publishedAt: number;
  visibility: Visibility;
}

/** Stores the boost of `original` by the remote `booster`; returns the existing one on a repeat. */
export function createRemoteBoost(app: App, booster: Account, original: Status, b: RemoteBoost): Status {
  const db = app.db;
  return tx(db, () => {
    const existing = findStatusByUri(db, b.uri) ?? findReblog(db, booster.id, original.id);
    if (existing) return existing;
    const createdAt = Math.min(b.publishedAt, app.now());
    // idAt's low bits are random: draw again in the rare case the id is taken.
    let id = idAt(createdAt);
    while (findStatusById(db, id)) id = idAt(createdAt);
    return storeBoost(app, { id, booster, original, uri: b.uri, url: null, visibility: b.visibility, createdAt });
  });
}
