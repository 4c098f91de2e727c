import type { App } from "../app.ts";
import { tx } from "../db/db.ts";
import { PermanentJobError } from "../errors.ts";
import type { Id } from "../lib/ids.ts";
import { removeMediaFiles } from "../media/files.ts";
import { findAccountById } from "../storage/accounts.ts";
import { dueDeletionRequests, touchDeletionRequest } from "../storage/account-moderation.ts";
import { deleteAccountRow, purgeMediaBatch, purgeRelationshipBatch, purgeRest, purgeStatusBatch } from "../storage/account-data-purge.ts";
import { onAccountDeleting } from "../federation/outbox/hooks.ts";
import { actorForAccount } from "./actor.ts";
import { audit } from "./audit.ts";

// The removal of a suspended account's data (Mastodon's Admin::AccountDeletionWorker →
// DeleteAccountService): the `account.purge` job removes one batch per run and queues its next
// run until nothing is left, so no transaction holds the database for long. It starts with
// Delete(actor) for a local account, while its followers are still known.

export const PURGE_JOB = "account.purge";
/** Rows per transaction. */
export const PURGE_BATCH = 100;
/** Suspended accounts keep their data this long unless deleted earlier (Mastodon: 30 days). */
export const SUSPENSION_RETENTION_MS = 30 * 86_400_000;

interface PurgePayload {
  accountId: Id;
  /** Who asked (null: the 30-day schedule). */
  actorId: Id | null;
  /** Set once Delete(actor) has gone out. */
  announced?: boolean;
  /**
   * A remote account removed without a trace (`roost domains purge`, Mastodon's
   * DeleteAccountService with skip_side_effects): not suspended first, nothing sent, the row
   * deleted at the end, so the account can come back if it is looked up again. The domain
   * purge has the audit entry.
   */
  remove?: boolean;
}

export function enqueueAccountPurge(app: App, accountId: Id, actorId: Id | null, opts: { remove?: boolean } = {}): void {
  app.jobs.enqueue(PURGE_JOB, { accountId, actorId, ...(opts.remove ? { remove: true, announced: true } : {}) } satisfies PurgePayload);
}

/** One step of the purge; the job re-queues itself while there is more. */
export async function handleAccountPurge(app: App, payload: PurgePayload): Promise<void> {
  if (!payload?.accountId) throw new PermanentJobError("account.purge needs accountId");
  const account = findAccountById(app.db, payload.accountId);
  if (!account) return;
  // Only remote accounts are removed outright.
  if (payload.remove && account.domain === null) throw new PermanentJobError("account.purge removes remote accounts only");
  // Unsuspended meanwhile: the deletion no longer stands.
  if (account.suspendedAt === null && !payload.remove) return;
  const next = (p: PurgePayload) => app.jobs.enqueue(PURGE_JOB, p);
  if (!payload.announced) {
    tx(app.db, () => {
      onAccountDeleting(app, account);
      next({ ...payload, announced: true });
    });
    return;
  }
  const statuses = tx(app.db, () => {
    const n = purgeStatusBatch(app.db, account.id, PURGE_BATCH);
    if (n > 0) next(payload);
    return n;
  });
  if (statuses > 0) return;
  const media = tx(app.db, () => {
    const m = purgeMediaBatch(app.db, account.id, PURGE_BATCH);
    if (m.count > 0) next(payload);
    return m;
  });
  await removeMediaFiles(app, media.files);
  if (media.count > 0) return;
  const relations = tx(app.db, () => {
    const n = purgeRelationshipBatch(app.db, account.id, PURGE_BATCH);
    if (n > 0) next(payload);
    return n;
  });
  if (relations > 0) return;
  const images = tx(app.db, () => {
    const out = purgeRest(app.db, account.id, app.now());
    if (payload.remove) {
      deleteAccountRow(app.db, account.id);
      return out;
    }
    const actor = payload.actorId ? (actorForAccount(app, payload.actorId, "job") ?? null) : null;
    audit(app, actor, "purge", { type: "Account", id: account.id, name: account.domain ? `${account.username}@${account.domain}` : account.username });
    return out;
  });
  await removeMediaFiles(app, [images.avatar, images.header]);
}

/** Periodic: suspensions older than the retention period have their data removed. */
export function purgeExpiredSuspensions(app: App): void {
  for (const accountId of dueDeletionRequests(app.db, app.now() - SUSPENSION_RETENTION_MS, 100)) {
    tx(app.db, () => {
      const account = findAccountById(app.db, accountId);
      if (!account) return;
      audit(app, null, "destroy", { type: "Account", id: account.id, name: account.username });
      enqueueAccountPurge(app, account.id, null);
      // The request goes when the purge ends; meanwhile it must not be queued twice.
      touchDeletionRequest(app.db, account.id, app.now());
    });
  }
}
