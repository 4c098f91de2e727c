import type { App } from "../app.ts";
import { tx } from "../db/db.ts";
import { idAt } from "../lib/ids.ts";
import type { Account } from "../storage/accounts.ts";
import {
  adjustAuthorStatusesCount,
  adjustStatusCounter,
  findReblog,
  findStatusById,
  findStatusByUri,
  insertStatus,
  type Status,
  type Visibility,
} from "../storage/statuses.ts";
import { onStatusCreated } from "../federation/outbox/hooks.ts";
import { notify } from "./notifications.ts";

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
    insertStatus(db, {
      id,
      accountId: booster.id,
      local: false,
      uri: b.uri,
      url: null,
      text: "",
      content: "",
      spoilerText: "",
      sensitive: false,
      visibility: b.visibility,
      language: null,
      inReplyToId: null,
      inReplyToAccountId: null,
      inReplyToUri: null,
      reblogOfId: original.id,
      conversationId: null,
      applicationId: null,
      createdAt,
    });
    adjustStatusCounter(db, original.id, "reblogs_count", 1);
    adjustAuthorStatusesCount(db, booster.id, 1, createdAt);
    app.jobs.enqueue("status.fanout", { statusId: id });
    notify(app, { type: "reblog", recipientId: original.accountId, fromAccountId: booster.id, statusId: original.id });
    const boost = findStatusById(db, id)!;
    onStatusCreated(app, boost);
    return boost;
  });
}
