// Instance-level domain blocks (admin) as federation applies them: suspend refuses everything
// from and to the domain, silence limits its accounts, reject_media skips its media, and
// reject_reports ignores its Flags. A block covers subdomains; a port is not part of the rule.
// In limited-federation mode (`roost settings`, default config.limitedFederation) a domain without an allow (on itself or
// a parent domain) is treated as suspended, so every check of suspension enforces the list.
import type { App } from "../app.ts";
import { findRowCache, installRowCache, type RowCacheSpec } from "../storage/row-cache.ts";
import { findDomainBlockFor } from "../storage/domain-blocks.ts";
import { isDomainAllowed } from "../storage/domain-allows.ts";
import { limitedFederation } from "../storage/instance-settings.ts";

export interface DomainPolicy {
  suspended: boolean;
  silenced: boolean;
  rejectMedia: boolean;
  rejectReports: boolean;
}

const OPEN: DomainPolicy = { suspended: false, silenced: false, rejectMedia: false, rejectReports: false };

/** `host[:port]` or a URL → the host name the admin's blocks are written for. */
export function hostnameOf(domainOrUrl: string): string {
  let s = domainOrUrl.trim().toLowerCase();
  if (/^[a-z][a-z0-9+.-]*:\/\//.test(s)) {
    try {
      return new URL(s).hostname;
    } catch {
      return s;
    }
  }
  if (s.startsWith("[")) return s.slice(0, s.indexOf("]") + 1);
  const colon = s.lastIndexOf(":");
  if (colon !== -1 && /^\d+$/.test(s.slice(colon + 1))) s = s.slice(0, colon);
  return s;
}

// Policies by host name. Asked for every inbox request, fetch, delivery and remote post, and
// the lookup cannot use an index (a block covers subdomains): cached, and emptied by any
// change to domain_blocks or domain_allows (see storage/row-cache.ts).
const DOMAIN_POLICIES: RowCacheSpec = { name: "federation:domain-policies", max: 4096, watches: [["domain_blocks", null], ["domain_allows", null], ["settings", null]] };

/** Installs the policy cache (once, outside transactions, when the HTTP app is made). */
export function installDomainPolicyCache(app: App): void {
  installRowCache(app, DOMAIN_POLICIES);
}

const CLOSED: DomainPolicy = { suspended: true, silenced: false, rejectMedia: true, rejectReports: true };

function lookupPolicy(app: App, host: string): DomainPolicy {
  if (limitedFederation(app) && !isDomainAllowed(app.db, host)) return CLOSED;
  const block = findDomainBlockFor(app.db, host);
  if (!block) return OPEN;
  return {
    suspended: block.severity === "suspend",
    silenced: block.severity === "silence",
    rejectMedia: block.rejectMedia || block.severity === "suspend",
    rejectReports: block.rejectReports || block.severity === "suspend",
  };
}

export function domainPolicy(app: App, domainOrUrl: string): DomainPolicy {
  const host = hostnameOf(domainOrUrl);
  const cache = findRowCache<DomainPolicy>(app, DOMAIN_POLICIES);
  cache?.sync();
  let p = cache?.get(host);
  if (!p) {
    p = lookupPolicy(app, host);
    cache?.set(host, p);
  }
  return p;
}

/** True when nothing may be fetched from or delivered to the domain. */
export const isSuspendedDomain = (app: App, domainOrUrl: string) => domainPolicy(app, domainOrUrl).suspended;
