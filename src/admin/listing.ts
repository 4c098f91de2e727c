import type { App } from "../app.ts";
import { notFound } from "../errors.ts";
import { type Id, parseId } from "../lib/ids.ts";
import { isoTime } from "../lib/iso-time.ts";
import { type Account, findAccountByHandle, findAccountById } from "../storage/accounts.ts";
import { type AccountSummary, type AdminAccountFilter, filterAdminAccountIds, findAccountSummaries } from "../storage/admin-accounts.ts";
import { listAccountWarnings } from "../storage/account-warnings.ts";
import { listModerationNotes } from "../storage/moderation-notes.ts";
import { listRoles } from "../storage/user-roles.ts";
import { listUserIps } from "../storage/user-ips.ts";
import { EVERYONE_ROLE_ID } from "../lib/permissions.ts";
import { findOwnerUser, findUserByAccountId } from "../storage/users.ts";
import { type Actor, makeActor, requireCan } from "./actor.ts";

// What the operator's CLI shows of accounts (roost accounts list/show): flat rows, the same
// facts as Admin::Account without the public Account entity.

export interface AccountRow {
  id: Id;
  username: string;
  domain: string | null;
  email: string | null;
  role: string | null;
  ip: string | null;
  confirmed: boolean;
  approved: boolean;
  disabled: boolean;
  silenced: boolean;
  suspended: boolean;
  sensitized: boolean;
  created_at: string;
  [k: string]: unknown;
}

/** An account named by id, `username` (local), `@username` or `username@domain`; 404 otherwise. */
export function findAccountByRef(app: App, ref: string): Account {
  const r = ref.trim().replace(/^@/, "");
  let account: Account | undefined;
  if (/^[0-9]{1,19}$/.test(r)) account = findAccountById(app.db, parseId(r)!);
  if (!account) {
    const at = r.indexOf("@");
    const domain = at > 0 ? r.slice(at + 1).toLowerCase() : null;
    account = findAccountByHandle(app.db, at > 0 ? r.slice(0, at) : r, domain === app.config.domain ? null : domain);
  }
  if (!account) throw notFound(`Account not found: ${ref}`);
  return account;
}

export function accountRows(app: App, accounts: Account[]): AccountRow[] {
  return summaryRows(app, findAccountSummaries(app.db, accounts.map((a) => a.id)));
}

function summaryRows(app: App, list: AccountSummary[]): AccountRow[] {
  const roles = new Map(listRoles(app.db).map((r) => [r.id, r.name]));
  const ips = listUserIps(app.db, list.flatMap((a) => (a.user ? [a.user.id] : [])));
  return list.map((a) => ({
    id: a.id,
    username: a.username,
    domain: a.domain,
    email: a.user?.email ?? null,
    // null: a remote account, or a user without a role (Mastodon's everyone role).
    role: a.user && a.user.roleId !== null && a.user.roleId !== EVERYONE_ROLE_ID ? (roles.get(a.user.roleId) ?? null) : null,
    ip: a.user ? (ips.get(a.user.id)?.[0]?.ip ?? null) : null,
    confirmed: a.user?.confirmed ?? false,
    approved: a.user?.approved ?? false,
    disabled: a.user?.disabled ?? false,
    silenced: a.silencedAt !== null,
    suspended: a.suspendedAt !== null,
    sensitized: a.sensitizedAt !== null,
    created_at: isoTime(a.createdAt),
  }));
}

/**
 * `roost accounts list`: every account that passes the filter (up to `max`), newest first,
 * read in pages of 1000 ids and narrow rows, so that a large instance lists quickly.
 */
export function listAccountRows(app: App, actor: Actor, filter: Omit<AdminAccountFilter, "limit" | "maxId">, max = Infinity): AccountRow[] {
  requireCan(actor, "manage_users");
  const out: AccountRow[] = [];
  let maxId: Id | undefined;
  for (;;) {
    const size = Math.min(1000, max - out.length);
    if (size <= 0) break;
    const ids = filterAdminAccountIds(app.db, { ...filter, maxId, limit: size });
    out.push(...summaryRows(app, findAccountSummaries(app.db, ids)));
    if (ids.length < size) break;
    maxId = ids[ids.length - 1];
  }
  return out;
}

/** `roost accounts show`: the row plus moderation notes and warnings. */
export function accountDetails(app: App, actor: Actor, account: Account): Record<string, unknown> {
  requireCan(actor, "manage_users");
  const [row] = accountRows(app, [account]);
  const notes = listModerationNotes(app.db, "account", account.id).map((n) => ({ id: n.id, by: n.accountId, at: isoTime(n.createdAt), content: n.content }));
  const warnings = listAccountWarnings(app.db, account.id).map((w) => ({ id: w.id, action: w.action, at: isoTime(w.createdAt), text: w.text }));
  return { ...row, display_name: account.displayName, notes, warnings };
}

/**
 * Who a CLI command acts as: the user named by `--as`, else the instance owner (the
 * earliest user of the highest role; storage/users.ts findOwnerUser).
 */
export function operatorActor(app: App, asRef: string | undefined): Actor {
  let account: Account;
  if (asRef !== undefined) account = findAccountByRef(app, asRef);
  else {
    const owner = findOwnerUser(app.db);
    if (!owner) throw new Error("no instance owner yet: create one (roost user create NAME --email EMAIL --role owner) or pass --as USERNAME");
    account = findAccountById(app.db, owner.accountId)!;
  }
  const user = account.domain === null ? findUserByAccountId(app.db, account.id) : undefined;
  if (!user) throw new Error(`--as ${asRef}: not a local user`);
  return makeActor(app, user, account, "cli");
}
