import type { App } from "../app.ts";
import { announceSignUp } from "../services/users.ts";
import { tx } from "../db/db.ts";
import { forbidden, notFound } from "../errors.ts";
import { type Id, parseId } from "../lib/ids.ts";
import { isoTime } from "../lib/iso-time.ts";
import { type Account, findAccountById, updateAccount } from "../storage/accounts.ts";
import { type AdminAccountFilter, filterAdminAccountIds } from "../storage/admin-accounts.ts";
import { hasDeletionRequest } from "../storage/account-moderation.ts";
import { deleteAccountRow } from "../storage/account-data-purge.ts";
import { type User, findUserByAccountId, updateUser } from "../storage/users.ts";
import type { UserRole } from "../storage/user-roles.ts";
import { type Actor, requireCan, roleOfUser } from "./actor.ts";
import { audit } from "./audit.ts";
import { enqueueAccountPurge } from "./account-purge.ts";
import { liftSuspension } from "./suspension.ts";

export type { AccountStatusFilter, AdminAccountFilter } from "../storage/admin-accounts.ts";

// Admin use cases on accounts (Mastodon's Api::V1::Admin::AccountsController with
// AccountPolicy and UserPolicy). The actions with a warning (suspend, silence ...) are in
// account-actions.ts.

export function requireAdminAccount(app: App, rawId: string | undefined): Account {
  const id = parseId(rawId);
  const account = id && findAccountById(app.db, id);
  if (!account) throw notFound();
  return account;
}

/** The account's user and role (both null for a remote account). */
export function userAndRole(app: App, account: Account): { user: User | null; role: UserRole | null } {
  const user = account.domain === null ? (findUserByAccountId(app.db, account.id) ?? null) : null;
  return { user, role: roleOfUser(app, user) };
}

/** `require_local_account!`: a local account with a user, else 403. */
function requireLocalUser(app: App, account: Account): User {
  const user = account.domain === null ? findUserByAccountId(app.db, account.id) : undefined;
  if (!user) throw forbidden();
  return user;
}

const handle = (a: Account) => (a.domain === null ? a.username : `${a.username}@${a.domain}`);
const accountTarget = (a: Account) => ({ type: "Account", id: a.id, name: handle(a) });
const userTarget = (a: Account, u: User) => ({ type: "User", id: u.id, name: handle(a) });
const time = (ms: number | null) => (ms === null ? null : isoTime(ms));

/** Ids of the accounts that pass the filter, newest first (the serializer reads what it shows). */
export function listAdminAccountIds(app: App, actor: Actor, filter: AdminAccountFilter): Id[] {
  requireCan(actor, "manage_users");
  return filterAdminAccountIds(app.db, filter);
}

export function showAdminAccount(app: App, actor: Actor, rawId: string | undefined): Account {
  requireCan(actor, "manage_users");
  return requireAdminAccount(app, rawId);
}

/** A pending sign-up approved (UserPolicy#approve?). */
export function approveAccount(app: App, actor: Actor, account: Account): Account {
  requireCan(actor, "manage_users");
  const user = requireLocalUser(app, account);
  if (user.approved) throw forbidden();
  tx(app.db, () => {
    updateUser(app.db, user.id, { approved: true, updatedAt: app.now() });
    audit(app, actor, "approve", userTarget(account, user), { approved: [false, true] });
    // Confirmed already: the account is active from now on, and the staff hear of it.
    if (user.confirmedAt !== null) announceSignUp(app, account.id);
  });
  return findAccountById(app.db, account.id)!;
}

/** A pending sign-up refused: account and user are deleted outright (nothing was federated). */
export function rejectAccount(app: App, actor: Actor, account: Account): void {
  requireCan(actor, "manage_users");
  const user = requireLocalUser(app, account);
  if (user.approved) throw forbidden();
  tx(app.db, () => {
    audit(app, actor, "reject", userTarget(account, user), { email: [user.email, null], username: [account.username, null] });
    deleteAccountRow(app.db, account.id);
  });
}

/** Re-enables a disabled login (local accounts only). */
export function enableAccount(app: App, actor: Actor, account: Account): Account {
  requireCan(actor, "manage_users");
  const user = requireLocalUser(app, account);
  if (user.disabled) {
    tx(app.db, () => {
      updateUser(app.db, user.id, { disabled: false, updatedAt: app.now() });
      audit(app, actor, "enable", userTarget(account, user), { disabled: [true, false] });
    });
  }
  return findAccountById(app.db, account.id)!;
}

export function unsilenceAccount(app: App, actor: Actor, account: Account): Account {
  requireCan(actor, "manage_users");
  if (account.silencedAt !== null) {
    tx(app.db, () => {
      updateAccount(app.db, account.id, { silencedAt: null, updatedAt: app.now() });
      audit(app, actor, "unsilence", accountTarget(account), { silenced_at: [time(account.silencedAt), null] });
    });
  }
  return findAccountById(app.db, account.id)!;
}

export function unsensitizeAccount(app: App, actor: Actor, account: Account): Account {
  requireCan(actor, "manage_users");
  if (account.sensitizedAt !== null) {
    tx(app.db, () => {
      updateAccount(app.db, account.id, { sensitizedAt: null, updatedAt: app.now() });
      audit(app, actor, "unsensitive", accountTarget(account), { sensitized_at: [time(account.sensitizedAt), null] });
    });
  }
  return findAccountById(app.db, account.id)!;
}

/** Only our own moderators' suspensions can be lifted here (AccountPolicy#unsuspend?). */
export function unsuspendAccount(app: App, actor: Actor, account: Account): Account {
  requireCan(actor, "manage_users");
  if (account.suspendedAt === null || account.suspensionOrigin !== "local") throw forbidden();
  tx(app.db, () => {
    liftSuspension(app, account);
    audit(app, actor, "unsuspend", accountTarget(account), { suspended_at: [time(account.suspendedAt), null] });
  });
  return findAccountById(app.db, account.id)!;
}

/**
 * DELETE /api/v1/admin/accounts/:id: the data of an account suspended and awaiting deletion
 * is removed now, in batches, by the `account.purge` job (AccountPolicy#destroy?).
 */
export function deleteAccountData(app: App, actor: Actor, account: Account): void {
  requireCan(actor, "delete_user_data");
  if (account.suspendedAt === null || !hasDeletionRequest(app.db, account.id)) throw forbidden();
  tx(app.db, () => {
    audit(app, actor, "destroy", accountTarget(account));
    enqueueAccountPurge(app, account.id, actor.account.id);
  });
}
