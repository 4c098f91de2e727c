// https://docs.joinmastodon.org/entities/Admin_Account/ (entities-admin.md § Admin::Account)
import type { App } from "../app.ts";
import type { Id } from "../lib/ids.ts";
import { isoTime } from "../lib/iso-time.ts";
import { type Account, findAccountsByIds } from "../storage/accounts.ts";
import { findUsersByAccountIds } from "../storage/account-profile.ts";
import { listUserIps } from "../storage/user-ips.ts";
import { listRoles } from "../storage/user-roles.ts";
import { type ApiAccount, toApiAccounts } from "./account.ts";
import { type ApiRole, type RoleTable, roleOf, toApiRole } from "./role.ts";

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

/** A page of Admin::Account entities in input order, with a fixed number of queries. */
export function toApiAdminAccounts(app: App, accounts: Account[]): ApiAdminAccount[] {
  if (accounts.length === 0) return [];
  const users = findUsersByAccountIds(app.db, accounts.filter((a) => a.domain === null).map((a) => a.id));
  const ips = listUserIps(app.db, [...users.values()].map((u) => u.id));
  const roles: RoleTable = new Map(listRoles(app.db).map((r) => [r.id, r]));
  const publics = toApiAccounts(app, accounts);
  return accounts.map((a, i) => {
    const user = users.get(a.id);
    const known = user ? (ips.get(user.id) ?? []) : [];
    const out: ApiAdminAccount = {
      id: a.id,
      username: a.username,
      domain: a.domain,
      created_at: isoTime(a.createdAt),
      email: user?.email ?? null,
      ip: known[0]?.ip ?? null,
      ips: known.map((x) => ({ ip: x.ip, used_at: isoTime(x.usedAt) })),
      locale: user?.locale ?? null,
      invite_request: user?.reason ?? null,
      role: user ? toApiRole(roles, roleOf(roles, user.roleId)) : null,
      confirmed: user ? user.confirmedAt !== null : false,
      approved: user ? user.approved : false,
      disabled: user ? user.disabled : false,
      silenced: a.silencedAt !== null,
      suspended: a.suspendedAt !== null,
      sensitized: a.sensitizedAt !== null,
      account: publics[i],
    };
    if (user?.createdByAppId) out.created_by_application_id = user.createdByAppId;
    if (user?.invitedByAccountId) out.invited_by_account_id = user.invitedByAccountId;
    return out;
  });
}

export function toApiAdminAccount(app: App, account: Account): ApiAdminAccount {
  return toApiAdminAccounts(app, [account])[0];
}

/** Admin::Account entities by account id (missing ids are absent), for reports. */
export function adminAccountsById(app: App, ids: Iterable<Id>): Map<Id, ApiAdminAccount> {
  const accounts = [...findAccountsByIds(app.db, [...new Set(ids)]).values()];
  return new Map(toApiAdminAccounts(app, accounts).map((a) => [a.id, a]));
}
