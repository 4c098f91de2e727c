import type { App } from "../app.ts";
import { forbidden } from "../errors.ts";
import type { Id } from "../lib/ids.ts";
import { computedPermissions, EVERYONE_ROLE_ID, hasAnyPermission, type Permission } from "../lib/permissions.ts";
import { type Account, findAccountById } from "../storage/accounts.ts";
import { everyoneRole, findRoleById, type UserRole } from "../storage/user-roles.ts";
import { findUserByAccountId, type User } from "../storage/users.ts";

// Who performs an admin action, with what role, and from where (Mastodon's policies:
// app/policies/*.rb). Every admin use case takes an Actor; routes get one from
// http/admin-auth.ts requirePermission, the CLI from its --as option, jobs from their payload.

/** Where an action came from, as the audit log records it. */
export type ActionSource = "api" | "cli" | "job";

export interface Actor {
  account: Account;
  user: User;
  /** The user's role (the everyone role when they have none). */
  role: UserRole;
  /** The role's computed bitmask (everyone's bits added; administrator = all). */
  permissions: number;
  source: ActionSource;
}

/** The role a user holds: its row, or everyone (role_id NULL, or a role deleted since). */
export function roleOfUser(app: App, user: User | undefined | null): UserRole | null {
  if (!user) return null;
  return (user.roleId !== null && findRoleById(app.db, user.roleId)) || everyoneRole(app.db);
}

export function makeActor(app: App, user: User, account: Account, source: ActionSource): Actor {
  const role = roleOfUser(app, user)!;
  const everyone = everyoneRole(app.db);
  const permissions = role.id === EVERYONE_ROLE_ID ? role.permissions : computedPermissions(role.permissions, everyone.permissions);
  return { account, user, role, permissions, source };
}

/** The actor of a local account (CLI --as, jobs acting for a moderator); undefined when it has no user. */
export function actorForAccount(app: App, accountId: Id, source: ActionSource): Actor | undefined {
  const account = findAccountById(app.db, accountId);
  const user = account && findUserByAccountId(app.db, account.id);
  return account && user ? makeActor(app, user, account, source) : undefined;
}

export function can(actor: Actor, ...anyOf: Permission[]): boolean {
  return hasAnyPermission(actor.permissions, anyOf);
}

/** 403 "This action is not allowed" unless the actor's role has one of `anyOf`. */
export function requireCan(actor: Actor, ...anyOf: Permission[]): void {
  if (!can(actor, ...anyOf)) throw forbidden();
}

/**
 * UserRole#overrides?: the actor's role is strictly above `other` (a remote account, with no
 * role, is outranked by anyone). Nobody acts on an equal or higher role.
 */
export function outranks(actor: Actor, other: UserRole | null): boolean {
  return other === null || actor.role.position > other.position;
}

export function requireOutranks(actor: Actor, other: UserRole | null): void {
  if (!outranks(actor, other)) throw forbidden();
}
