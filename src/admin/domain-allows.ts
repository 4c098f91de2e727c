import type { App } from "../app.ts";
import { tx } from "../db/db.ts";
import { notFound } from "../errors.ts";
import { parseId } from "../lib/ids.ts";
import { Validation } from "../lib/validation.ts";
import { normalizeDomain } from "../services/domain-blocks.ts";
import {
  deleteDomainAllow,
  type DomainAllow,
  findDomainAllowByDomain,
  findDomainAllowById,
  insertDomainAllow,
  listDomainAllowsPage,
} from "../storage/domain-allows.ts";
import type { Page } from "../storage/timelines.ts";
import { type Actor, requireCan } from "./actor.ts";
import { audit } from "./audit.ts";
import { limitedFederation } from "../storage/instance-settings.ts";
import { enqueueDomainSuspension } from "./domain-accounts.ts";

// The federation allow-list (Mastodon's Api::V1::Admin::DomainAllowsController,
// UnallowDomainService), read when the config's `limitedFederation` is on
// (federation/domain-policy.ts treats every other domain as suspended).

export function listDomainAllows(app: App, actor: Actor, page: Page): DomainAllow[] {
  requireCan(actor, "manage_federation");
  return listDomainAllowsPage(app.db, page);
}

/** By id (the API) or, for the CLI, by domain name too. */
export function requireDomainAllow(app: App, ref: string | undefined, byDomain = false): DomainAllow {
  const id = parseId(ref);
  const domain = byDomain && ref ? normalizeDomain(ref) : undefined;
  const allow = (id && findDomainAllowById(app.db, id)) || (domain && findDomainAllowByDomain(app.db, domain)) || undefined;
  if (!allow) throw notFound();
  return allow;
}

/**
 * Allows a domain; an existing allow is returned as it is (Mastodon answers 200 with it).
 * A missing or blank domain is a 422 (the seed: never a 200), as is one that is no host name.
 */
export function allowDomain(app: App, actor: Actor, rawDomain: string | undefined): DomainAllow {
  requireCan(actor, "manage_federation");
  const raw = rawDomain ?? "";
  const domain = raw.trim() === "" ? undefined : normalizeDomain(raw);
  const v = new Validation();
  if (raw.trim() === "") v.add("domain", "ERR_BLANK", "can't be blank");
  else if (!domain) v.add("domain", "ERR_INVALID", "is invalid");
  v.throwIfAny();
  return tx(app.db, () => {
    const existing = findDomainAllowByDomain(app.db, domain!);
    if (existing) return existing;
    const now = app.now();
    const allow: DomainAllow = { id: app.ids.next(), domain: domain!, createdAt: now, updatedAt: now };
    insertDomainAllow(app.db, allow);
    audit(app, actor, "create", { type: "DomainAllow", id: allow.id, name: allow.domain }, { domain: [null, allow.domain] });
    return allow;
  });
}

/**
 * Removes an allow. In limited-federation mode the domain's accounts are then suspended and
 * their data purged, as Mastodon's UnallowDomainService does (roost keeps the account rows,
 * as for any suspension, so that their names stay reserved).
 */
export function disallowDomain(app: App, actor: Actor, allow: DomainAllow): void {
  requireCan(actor, "manage_federation");
  tx(app.db, () => {
    deleteDomainAllow(app.db, allow.id);
    if (limitedFederation(app)) enqueueDomainSuspension(app, allow.domain, app.now(), actor.account.id);
    audit(app, actor, "destroy", { type: "DomainAllow", id: allow.id, name: allow.domain }, { domain: [allow.domain, null] });
  });
}
