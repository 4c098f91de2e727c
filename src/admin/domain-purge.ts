import type { App } from "../app.ts";
import { tx } from "../db/db.ts";
import { PermanentJobError, unprocessable } from "../errors.ts";
import type { Id } from "../lib/ids.ts";
import { emojiFiles } from "../media/emoji-images.ts";
import { mediaStore } from "../media/store.ts";
import { hostnameOf } from "../federation/domain-policy.ts";
import { isDomainAllowed } from "../storage/domain-allows.ts";
import { accountIdsOfDomainsAfter, countDomainContent, deleteDomainEmojiBatch, remoteAccountDomains } from "../storage/domain-purge.ts";
import { limitedFederation } from "../storage/instance-settings.ts";
import { normalizeDomain } from "../services/domain-blocks.ts";
import { type Actor, requireCan } from "./actor.ts";
import { enqueueAccountPurge } from "./account-purge.ts";
import { audit } from "./audit.ts";

// `roost domains purge DOMAIN...` and `roost domains purge --limited-federation` (Mastodon's
// `tootctl domains purge`, with and without --limited-federation-mode): the remote accounts of
// the domains go without a trace (their posts, media, follows and then the account rows; an
// account may come back if it is looked up again), and so do the domains' custom emojis. No
// block is made or lifted. The `domain.purge` job takes a batch of accounts per run, each
// removed by the account.purge job in its own batches, so no transaction is long.

export const DOMAIN_PURGE_JOB = "domain.purge";
const BATCH = 50;
const EMOJI_BATCH = 200;

export interface DomainPurgeInput {
  domains: string[];
  /** Every domain without an allow (limited-federation mode must be on). */
  limitedFederation: boolean;
}

export interface DomainPurgePlan {
  /** The host names asked for, or those out of bounds in limited-federation mode. */
  hosts: string[];
  /** The stored account domains (`host[:port]`) they cover. */
  domains: string[];
  accounts: number;
  statuses: number;
  emojis: number;
}

interface Payload {
  domains: string[];
  actorId: Id | null;
  afterId?: Id;
}

/** What a purge would remove (`--dry-run` prints it; the purge starts from it). */
export function planDomainPurge(app: App, actor: Actor, input: DomainPurgeInput): DomainPurgePlan {
  requireCan(actor, "manage_federation");
  if (input.limitedFederation && input.domains.length > 0) throw unprocessable("DOMAIN is not supported with --limited-federation");
  if (!input.limitedFederation && input.domains.length === 0) throw unprocessable("No domain(s) given");
  let hosts: string[];
  let domains: string[];
  const known = remoteAccountDomains(app.db);
  if (input.limitedFederation) {
    // Mastodon purges regardless of the mode; with the mode off every remote account would go.
    if (!limitedFederation(app)) throw unprocessable("limited federation is off: every domain is allowed (roost settings set limited-federation on)");
    domains = known.filter((d) => !isDomainAllowed(app.db, hostnameOf(d)));
    hosts = [...new Set(domains.map(hostnameOf))];
  } else {
    hosts = [
      ...new Set(
        input.domains.map((raw) => {
          const host = normalizeDomain(raw);
          if (!host) throw unprocessable(`Validation failed: ${raw.slice(0, 100)} is not a domain`);
          return host;
        }),
      ),
    ];
    // A port is not part of the name (as for blocks): 127.0.0.1 covers 127.0.0.1:8080.
    domains = known.filter((d) => hosts.includes(hostnameOf(d)));
    // Emojis of a domain no account is left of are purged too.
    for (const h of hosts) if (!domains.includes(h)) domains.push(h);
  }
  return { hosts, domains, ...countDomainContent(app.db, domains) };
}

/** Starts the purge: one audit entry per host (Mastodon's destroy Instance), then the job. */
export function startDomainPurge(app: App, actor: Actor, input: DomainPurgeInput): DomainPurgePlan {
  const plan = planDomainPurge(app, actor, input);
  tx(app.db, () => {
    for (const host of plan.hosts) {
      const own = countDomainContent(app.db, plan.domains.filter((d) => hostnameOf(d) === host));
      audit(app, actor, "destroy", { type: "Instance", id: null, name: host }, { accounts: [own.accounts, 0], statuses: [own.statuses, 0], custom_emojis: [own.emojis, 0] });
    }
    if (plan.domains.length > 0) app.jobs.enqueue(DOMAIN_PURGE_JOB, { domains: plan.domains, actorId: actor.account.id } satisfies Payload);
  });
  return plan;
}

export async function handleDomainPurge(app: App, p: Payload): Promise<void> {
  if (!Array.isArray(p?.domains) || !p.domains.every((d) => typeof d === "string")) throw new PermanentJobError("domain.purge needs domains");
  const ids = tx(app.db, () => {
    const batch = accountIdsOfDomainsAfter(app.db, p.domains, p.afterId ?? "0", BATCH);
    for (const id of batch) enqueueAccountPurge(app, id, p.actorId, { remove: true });
    if (batch.length === BATCH) app.jobs.enqueue(DOMAIN_PURGE_JOB, { ...p, afterId: batch[batch.length - 1] });
    return batch;
  });
  if (ids.length === BATCH) return;
  // The accounts are all queued: then the emojis, a batch per transaction.
  for (;;) {
    const { count, files } = tx(app.db, () => deleteDomainEmojiBatch(app.db, p.domains, EMOJI_BATCH));
    await mediaStore(app).remove(files.flatMap((file) => emojiFiles({ file })));
    if (count < EMOJI_BATCH) return;
  }
}
