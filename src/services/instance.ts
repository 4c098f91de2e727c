import type { App } from "../app.ts";
import { type Account, findAccountById } from "../storage/accounts.ts";
import {
  countLocalStatuses,
  countPeerDomains,
  countUsers,
  findContactAccountId,
  listPeerDomains,
  searchPeerDomains,
} from "../storage/instance-stats.ts";
import { type Rule, listRules } from "../storage/rules.ts";
import { countActiveUsersSince } from "../storage/users.ts";
import { registrationsMode } from "../storage/instance-settings.ts";
import { type Capabilities, compatibleRelease, instanceVersion, mastodonApiVersion, serverCapabilities } from "./capabilities.ts";
import { getClosedRegistrationsMessage, getTermsOfService } from "./instance-pages.ts";

const DAY = 86_400_000;

/** What the instance endpoints report, gathered from config and the database. */
export interface InstanceInfo {
  /** The first active admin's account: the instance's public contact. */
  contactAccount: Account | null;
  rules: Rule[];
  /** Only for the v1 entity (computed on request: the status count scans the table). */
  stats?: { userCount: number; statusCount: number; domainCount: number };
  /** Users active in the last 4 weeks. */
  activeMonth: number;
  /** HTML, only while registrations are closed. */
  closedRegistrationsMessage: string | null;
  hasTermsOfService: boolean;
  /** What is served, hence what the documents may advertise. */
  capabilities: Capabilities;
  /** `version` of both documents, the Mastodon release the capabilities amount to. */
  version: string;
  /** `api_versions.mastodon`, or undefined (none sent, as Mastodon 4.2). */
  apiVersion: number | undefined;
}

export function getInstanceInfo(app: App, opts: { stats?: boolean } = {}): InstanceInfo {
  const contactId = findContactAccountId(app.db);
  return {
    contactAccount: (contactId && findAccountById(app.db, contactId)) || null,
    rules: listRules(app.db),
    stats: opts.stats
      ? { userCount: countUsers(app.db), statusCount: countLocalStatuses(app.db), domainCount: countPeerDomains(app.db) }
      : undefined,
    activeMonth: activeUsers(app, 28),
    closedRegistrationsMessage: registrationsMode(app) === "closed" ? getClosedRegistrationsMessage(app) : null,
    hasTermsOfService: getTermsOfService(app) !== undefined,
    ...capabilityClaims(serverCapabilities(app)),
  };
}

function capabilityClaims(capabilities: Capabilities) {
  return { capabilities, version: instanceVersion(capabilities), apiVersion: mastodonApiVersion(capabilities) };
}

/** Distinct users with an authenticated request in the last `days` days (today included). */
export function activeUsers(app: App, days: number): number {
  const now = app.now();
  const today = now - (now % DAY);
  return countActiveUsersSince(app.db, today - (days - 1) * DAY);
}

export interface NodeInfoUsage {
  total: number;
  activeMonth: number;
  activeHalfyear: number;
  localPosts: number;
  /** The Mastodon release roost's served capabilities amount to (metadata.upstream.version). */
  compatibleRelease: string;
}

/** NodeInfo usage: 4 and 24 weeks of activity, as Mastodon counts them. */
export function getNodeInfoUsage(app: App): NodeInfoUsage {
  return {
    total: countUsers(app.db),
    activeMonth: activeUsers(app, 28),
    activeHalfyear: activeUsers(app, 168),
    localPosts: countLocalStatuses(app.db),
    compatibleRelease: compatibleRelease(serverCapabilities(app)),
  };
}

/** Known remote domains (GET /api/v1/instance/peers). */
export function getPeers(app: App): string[] {
  return listPeerDomains(app.db);
}

/** Up to 10 known domains starting with `q` (GET /api/v1/peers/search). */
export function searchPeers(app: App, q: string): string[] {
  return searchPeerDomains(app.db, q.trim(), 10);
}
