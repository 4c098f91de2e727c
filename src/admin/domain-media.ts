import type { App } from "../app.ts";
import { PermanentJobError } from "../errors.ts";
import { domainPolicy } from "../federation/domain-policy.ts";
import { dropCacheEntries } from "../services/remote-media-prune.ts";
import { listEntriesOfDomain } from "../storage/remote-media-cache.ts";

// A domain block with reject_media (or suspend) also removes the copies of the domain's media
// already in the remote media cache (Mastodon's BlockDomainService#clear_media!); new copies
// are refused where they are made (federation/remote-media-cache.ts). The files go in the
// `domain.drop_media` job, a batch per run, after the block's transaction has committed.

export const DOMAIN_DROP_MEDIA_JOB = "domain.drop_media";
const BATCH = 200;

export function enqueueDomainMediaDrop(app: App, domain: string): void {
  app.jobs.enqueue(DOMAIN_DROP_MEDIA_JOB, { domain });
}

export async function handleDomainMediaDrop(app: App, p: { domain: string }): Promise<void> {
  if (typeof p?.domain !== "string") throw new PermanentJobError("domain.drop_media needs a domain");
  // Lifted or relaxed meanwhile: the copies may stay.
  if (!domainPolicy(app, p.domain).rejectMedia) return;
  const page = listEntriesOfDomain(app.db, p.domain, BATCH);
  await dropCacheEntries(app, page);
  if (page.length === BATCH) enqueueDomainMediaDrop(app, p.domain);
}
