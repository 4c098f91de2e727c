// https://docs.joinmastodon.org/entities/Admin_Account/ (entities-admin.md § Admin::Account)
import type { App } from "../app.ts";
import type { Id } from "../lib/ids.ts";
import { isoTime } from "../lib/iso-time.ts";
import { type AccountSummary, findAccountSummaries } from "../storage/admin-accounts.ts";
import { listUserIps } from "../storage/user-ips.ts";
import { listRoles } from "../storage/user-roles.ts";
import { type ApiAccount, type EmbeddedAccount, embeddedAccounts } from "./account.ts";
import { type ApiRole, type RoleTable, roleOf, toApiRole } from "./role.ts";
import { accountText } from "./status.ts";

export interface ApiAdminAccount {
  id: string;
  username: string;
  domain: string | null;
  created_at: string;
  email: string | null;
  ip: string | null;
  ips: { ip: string; used_at: string }[];
  locale: string | null;
  invite_request: string | null;
  role: ApiRole | null;
  confirmed: boolean;
  approved: boolean;
  disabled: boolean;
  silenced: boolean;
  suspended: boolean;
  sensitized: boolean;
  account: ApiAccount;
  created_by_application_id?: string;
  invited_by_account_id?: string;
}

type OwnFields = Omit<ApiAdminAccount, "account" | "created_by_application_id" | "invited_by_account_id">;

/**
 * A page's reads, a fixed number of queries whatever its length: narrow account and user rows
 * (no keys or profile text), every user's addresses, the roles, and the public Account
 * entities from the cache every page of statuses uses (serializers/account.ts).
 */
function readPage(app: App, ids: Id[]) {
  const summaries = findAccountSummaries(app.db, ids);
  const ips = listUserIps(app.db, summaries.flatMap((s) => (s.user ? [s.user.id] : [])));
  const table: RoleTable = new Map(listRoles(app.db).map((r) => [r.id, r]));
  // Each role's entity once per page.
  const entities = new Map<Id, ApiRole>();
  const roles = (roleId: Id | null): ApiRole => {
    const role = roleOf(table, roleId);
    let e = entities.get(role.id);
    if (!e) entities.set(role.id, (e = toApiRole(table, role)));
    return e;
  };
  const publics = embeddedAccounts(app, ids);
  return { summaries: summaries.filter((s) => publics.has(s.id)), ips, roles, publics };
}

function ownFields(s: AccountSummary, ips: Map<Id, { ip: string; usedAt: number }[]>, roles: (roleId: Id | null) => ApiRole): OwnFields & Partial<ApiAdminAccount> {
  const u = s.user;
  const known = u ? (ips.get(u.id) ?? []) : [];
  const out: OwnFields & Partial<ApiAdminAccount> = {
    id: s.id,
    username: s.username,
    domain: s.domain,
    created_at: isoTime(s.createdAt),
    email: u?.email ?? null,
    ip: known[0]?.ip ?? null,
    ips: known.map((x) => ({ ip: x.ip, used_at: isoTime(x.usedAt) })),
    locale: u?.locale ?? null,
    invite_request: u?.reason ?? null,
    role: u ? roles(u.roleId) : null,
    confirmed: u?.confirmed ?? false,
    approved: u?.approved ?? false,
    disabled: u?.disabled ?? false,
    silenced: s.silencedAt !== null,
    suspended: s.suspendedAt !== null,
    sensitized: s.sensitizedAt !== null,
  };
  if (u?.createdByAppId) out.created_by_application_id = u.createdByAppId;
  if (u?.invitedByAccountId) out.invited_by_account_id = u.invitedByAccountId;
  return out;
}

/** Admin::Account entities by account id, in input order (missing ids are left out). */
export function toApiAdminAccountsById(app: App, ids: Id[]): ApiAdminAccount[] {
  if (ids.length === 0) return [];
  const { summaries, ips, roles, publics } = readPage(app, ids);
  return summaries.map((s) => ({ ...ownFields(s, ips, roles), account: publics.get(s.id)!.json }));
}

/** The same page as JSON text, the nested accounts from their cached texts (what the listing sends). */
export function toApiAdminAccountsJson(app: App, ids: Id[]): string {
  if (ids.length === 0) return "[]";
  const { summaries, ips, roles, publics } = readPage(app, ids);
  const items = summaries.map((s) => `${JSON.stringify(ownFields(s, ips, roles)).slice(0, -1)},"account":${accountText(publics.get(s.id) as EmbeddedAccount)}}`);
  return "[" + items.join(",") + "]";
}

export function toApiAdminAccount(app: App, account: { id: Id }): ApiAdminAccount {
  return toApiAdminAccountsById(app, [account.id])[0];
}

/** Admin::Account entities by account id (missing ids are absent), for reports. */
export function adminAccountsById(app: App, ids: Iterable<Id>): Map<Id, ApiAdminAccount> {
  return new Map(toApiAdminAccountsById(app, [...new Set(ids)]).map((a) => [a.id, a]));
}
