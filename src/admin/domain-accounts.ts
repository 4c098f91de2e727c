import type { App } from "../app.ts";
import { tx } from "../db/db.ts";
import { PermanentJobError } from "../errors.ts";
import type { Id } from "../lib/ids.ts";
import { findAccountById } from "../storage/accounts.ts";
import { domainAccountIdsAfter } from "../storage/domain-blocks.ts";
import { domainPolicy } from "../federation/domain-policy.ts";
import { enqueueAccountPurge } from "./account-purge.ts";
import { applySuspension } from "./suspension.ts";

// The accounts of a domain that became suspended, by a domain block (Mastodon's
// BlockDomainService#suspend_accounts!) or by losing its allow in limited-federation mode
// (UnallowDomainService): each is suspended as a moderator's suspension would be, stamped with
// the block's time, and its data purged (account.purge). A domain can have many accounts, so
// the `domain.suspend_accounts` job takes a batch per run and queues the next.

export const DOMAIN_SUSPEND_JOB = "domain.suspend_accounts";
const BATCH = 50;

interface Payload {
  domain: string;
  /** The suspension's time (the block's created_at). */
  at: number;
  /** Who blocked (the purge's audit entry), null for the system. */
  actorId: Id | null;
  /** Keyset cursor: accounts with a larger id are next. */
  afterId?: Id;
}

export function enqueueDomainSuspension(app: App, domain: string, at: number, actorId: Id | null): void {
  app.jobs.enqueue(DOMAIN_SUSPEND_JOB, { domain, at, actorId } satisfies Payload);
}

export function handleDomainSuspension(app: App, p: Payload): void {
  if (typeof p?.domain !== "string" || typeof p.at !== "number") throw new PermanentJobError("domain.suspend_accounts needs domain and at");
  tx(app.db, () => {
    const ids = domainAccountIdsAfter(app.db, p.domain, p.afterId ?? "0", BATCH);
    for (const id of ids) {
      const account = findAccountById(app.db, id);
      // The policy decides, as at the time of this run: the block may be lifted or relaxed
      // meanwhile, and a subdomain's own allow keeps it open.
      if (!account || account.suspendedAt !== null || !account.domain || !domainPolicy(app, account.domain).suspended) continue;
      applySuspension(app, account, p.at);
      enqueueAccountPurge(app, account.id, p.actorId);
    }
    if (ids.length === BATCH) app.jobs.enqueue(DOMAIN_SUSPEND_JOB, { ...p, afterId: ids[ids.length - 1] });
  });
}
