import type { App } from "../app.ts";
import { ApiError } from "../errors.ts";
import { computedPermissions, EVERYONE_ROLE_ID, hasAnyPermission } from "../lib/permissions.ts";
import { findAccountById, type Account } from "../storage/accounts.ts";
import { type Invite, findInviteByCode } from "../storage/invites.ts";
import { inviteMinRoleId, invitesEnabled } from "../storage/instance-settings.ts";
import { everyoneRole, findRoleById, type UserRole } from "../storage/user-roles.ts";
import { findUserById, type User } from "../storage/users.ts";

// Using an invite (sign-up, GET /invite/:code). Creating, listing and expiring them are admin
// use cases (src/admin/invites.ts), which share the policy below.

/** Mastodon's Invite#valid_for_use?: uses left, not expired, and its inviter functional. */
export function inviteUsable(app: App, invite: Invite, now = app.now()): boolean {
  if (invite.maxUses !== null && invite.uses >= invite.maxUses) return false;
  if (invite.expiresAt !== null && invite.expiresAt <= now) return false;
  const inviter = inviterOf(app, invite);
  return inviter !== undefined && functional(inviter.user, inviter.account);
}

function functional(user: User, account: Account): boolean {
  return user.confirmedAt !== null && user.approved && !user.disabled && account.suspendedAt === null && !account.memorial && account.movedToAccountId === null;
}

export function inviterOf(app: App, invite: Invite): { user: User; account: Account } | undefined {
  const user = findUserById(app.db, invite.userId);
  const account = user && findAccountById(app.db, user.accountId);
  return user && account ? { user, account } : undefined;
}

/** The invite behind a code when it can be used now; undefined for unknown, used up or expired codes. */
export function findUsableInvite(app: App, code: string | undefined): Invite | undefined {
  if (!code || code.length > 64) return undefined;
  const invite = findInviteByCode(app.db, code);
  return invite && inviteUsable(app, invite) ? invite : undefined;
}

function roleOf(app: App, user: User): UserRole {
  return (user.roleId !== null && findRoleById(app.db, user.roleId)) || everyoneRole(app.db);
}

/**
 * Mastodon's Invite#bypass_approval?: the invite's creator holds invite_bypass_approval (their
 * role's computed permissions, administrator implying it). Only this decides whether an invitee
 * skips the approval queue; invite_users alone lets someone invite, not admit.
 */
export function inviterBypassesApproval(app: App, user: User): boolean {
  const role = roleOf(app, user);
  const bits = role.id === EVERYONE_ROLE_ID ? role.permissions : computedPermissions(role.permissions, everyoneRole(app.db).permissions);
  return hasAnyPermission(bits, ["invite_bypass_approval"]);
}

/**
 * Whether `user` may create invites now: invites are enabled, their role is at or above the
 * minimum role the admin set, and it has invite_users (Mastodon's InvitePolicy#create?).
 */
export function userMayInvite(app: App, user: User): boolean {
  if (!invitesEnabled(app)) return false;
  const role = roleOf(app, user);
  const minId = inviteMinRoleId(app);
  const min = minId === null ? null : findRoleById(app.db, minId);
  if (min && min.id !== EVERYONE_ROLE_ID && role.position < min.position) return false;
  const bits = role.id === EVERYONE_ROLE_ID ? role.permissions : computedPermissions(role.permissions, everyoneRole(app.db).permissions);
  return hasAnyPermission(bits, ["invite_users"]);
}

/**
 * GET /invite/:code (Api::V1::InvitesController): 404 for an unknown code, 401 "This invite is
 * not valid" for one used up, expired or whose inviter can no longer sign in. A valid invite
 * opens even closed registrations.
 */
export function inviteLanding(app: App, code: string): { invite: Invite; inviterUsername: string } {
  const invite = code.length <= 64 ? findInviteByCode(app.db, code) : undefined;
  if (!invite) throw new ApiError(404, "Record not found");
  if (!inviteUsable(app, invite)) throw new ApiError(401, "This invite is not valid");
  return { invite, inviterUsername: inviterOf(app, invite)!.account.username };
}
