// https://docs.joinmastodon.org/entities/Role/ — roles (storage/user-roles.ts) as Mastodon shows them.
import type { Id } from "../lib/ids.ts";
import { computedPermissions, EVERYONE_ROLE_ID } from "../lib/permissions.ts";
import type { UserRole } from "../storage/user-roles.ts";

export interface ApiRole {
  id: string;
  name: string;
  permissions: string;
  color: string;
  highlighted: boolean;
}

/** Every role by id (the table is a handful of rows), for a page of accounts. */
export type RoleTable = Map<Id, UserRole>;

/** A user's role: its row, or the everyone role for role_id NULL (or a role since deleted). */
export function roleOf(roles: RoleTable, roleId: Id | null): UserRole {
  return (roleId !== null && roles.get(roleId)) || roles.get(EVERYONE_ROLE_ID)!;
}

/** The Role entity (CredentialAccount.role, Admin::Account.role): computed permissions as a string. */
export function toApiRole(roles: RoleTable, role: UserRole): ApiRole {
  const everyone = roles.get(EVERYONE_ROLE_ID)?.permissions ?? 0;
  const permissions = role.id === EVERYONE_ROLE_ID ? role.permissions : computedPermissions(role.permissions, everyone);
  return { id: role.id, name: role.name, permissions: String(permissions), color: role.color, highlighted: role.highlighted };
}

/** AccountRole entries of Account.roles: the user's role when it is highlighted. */
export function toApiAccountRoles(roles: RoleTable, roleId: Id | null): { id: string; name: string; color: string }[] {
  const r = roleOf(roles, roleId);
  return r.highlighted && r.id !== EVERYONE_ROLE_ID ? [{ id: r.id, name: r.name, color: r.color }] : [];
}
