import type { App } from "../app.ts";
import { tx } from "../db/db.ts";
import { forbidden, notFound, unprocessable } from "../errors.ts";
import { EVERYONE_ROLE_ID, isPermission, permissionBits, permissionNames, POSITION_LIMIT, SAFE_PERMISSIONS } from "../lib/permissions.ts";
import { Validation } from "../lib/validation.ts";
import type { Account } from "../storage/accounts.ts";
import { deleteRole, findRoleById, findRoleByName, insertRole, listRoles, setUserRoleId, updateRole, type UserRole } from "../storage/user-roles.ts";
import { type Actor, outranks, requireCan } from "./actor.ts";
import { userAndRole } from "./accounts.ts";
import { audit, changesOf } from "./audit.ts";

// Roles (Mastodon's UserRole with UserRolePolicy and its validations): managing them needs
// manage_roles; nobody creates, edits or deletes a role at or above their own position, grants
// permissions they lack, or changes their own role's permissions or position; a role is given
// to a user only by someone who outranks both the user's current role and the new one.

export interface RoleInput {
  name?: string;
  color?: string;
  position?: number;
  /** Permission names (lib/permissions.ts). */
  permissions?: string[];
  highlighted?: boolean;
}

const COLOR_RE = /^#?(?:[A-F0-9]{3}){1,2}$/i;

/** A role by id or (case-insensitive) name; "everyone" names the base role. */
export function requireRole(app: App, ref: string): UserRole {
  const r = ref.trim();
  const role = r.toLowerCase() === "everyone" ? findRoleById(app.db, EVERYONE_ROLE_ID) : (findRoleById(app.db, r) ?? findRoleByName(app.db, r));
  if (!role) throw notFound(`Role not found: ${ref}`);
  return role;
}

export function listAllRoles(app: App, actor: Actor): UserRole[] {
  requireCan(actor, "manage_roles");
  return listRoles(app.db);
}

const snapshot = (r: UserRole) => ({ name: r.name, color: r.color, position: r.position, permissions: permissionNames(r.permissions), highlighted: r.highlighted });

function validate(actor: Actor, role: UserRole, before: UserRole | null): void {
  const v = new Validation();
  if (role.id !== EVERYONE_ROLE_ID && role.name.trim() === "") v.add("name", "ERR_BLANK", "can't be blank");
  if (role.color !== "" && !COLOR_RE.test(role.color)) v.add("color", "ERR_INVALID", "is invalid");
  if (!Number.isInteger(role.position) || Math.abs(role.position) > POSITION_LIMIT) v.add("position", "ERR_INVALID", "is not a number in range");
  // validate_permissions_elevation, validate_position_elevation, validate_dangerous_permissions
  if ((actor.permissions & role.permissions) !== role.permissions) v.add("permissions", "ERR_ELEVATED", "cannot include permissions your current role does not have");
  if (role.id !== EVERYONE_ROLE_ID && role.position > actor.role.position) v.add("position", "ERR_ELEVATED", "cannot be higher than your current role");
  if (role.id === EVERYONE_ROLE_ID && (role.permissions & SAFE_PERMISSIONS) !== role.permissions) v.add("permissions", "ERR_DANGEROUS", "include permissions that are not safe for the base role");
  // validate_own_role_edition
  if (before && actor.role.id === role.id) {
    if (before.permissions !== role.permissions) v.add("permissions", "ERR_OWN_ROLE", "cannot be changed on your own role");
    if (before.position !== role.position) v.add("position", "ERR_OWN_ROLE", "cannot be changed on your own role");
  }
  v.throwIfAny();
}

function permissionsOf(names: string[]): number {
  const unknown = names.filter((n) => !isPermission(n));
  if (unknown.length) throw unprocessable(`Validation failed: Permissions unknown: ${unknown.join(", ")}`);
  return permissionBits(names.filter(isPermission));
}

export function createRole(app: App, actor: Actor, input: RoleInput): UserRole {
  requireCan(actor, "manage_roles");
  const now = app.now();
  const role: UserRole = {
    id: app.ids.next(),
    name: (input.name ?? "").trim(),
    color: (input.color ?? "").trim(),
    position: input.position ?? 0,
    permissions: permissionsOf(input.permissions ?? []),
    highlighted: input.highlighted ?? false,
    createdAt: now,
    updatedAt: now,
  };
  validate(actor, role, null);
  tx(app.db, () => {
    insertRole(app.db, role);
    audit(app, actor, "create", { type: "UserRole", id: role.id, name: role.name }, changesOf({}, snapshot(role)));
  });
  return role;
}

/** UserRolePolicy#update?: a role below one's own, or one's own (name, colour and badge only). */
export function updateUserRole(app: App, actor: Actor, role: UserRole, input: RoleInput): UserRole {
  requireCan(actor, "manage_roles");
  if (!(outranks(actor, role) || actor.role.id === role.id)) throw forbidden();
  const next: UserRole = {
    ...role,
    name: input.name !== undefined ? input.name.trim() : role.name,
    color: input.color !== undefined ? input.color.trim() : role.color,
    position: role.id === EVERYONE_ROLE_ID ? -1 : (input.position ?? role.position),
    permissions: input.permissions !== undefined ? permissionsOf(input.permissions) : role.permissions,
    highlighted: input.highlighted ?? role.highlighted,
    updatedAt: app.now(),
  };
  validate(actor, next, role);
  tx(app.db, () => {
    updateRole(app.db, next);
    audit(app, actor, "update", { type: "UserRole", id: role.id, name: next.name || "everyone" }, changesOf(snapshot(role), snapshot(next)));
  });
  return next;
}

/** UserRolePolicy#destroy?: never the base role, nor one's own, nor one at or above one's own. */
export function deleteUserRole(app: App, actor: Actor, role: UserRole): void {
  requireCan(actor, "manage_roles");
  if (role.id === EVERYONE_ROLE_ID || role.id === actor.role.id || !outranks(actor, role)) throw forbidden();
  tx(app.db, () => {
    deleteRole(app.db, role.id);
    audit(app, actor, "destroy", { type: "UserRole", id: role.id, name: role.name }, changesOf(snapshot(role), {}));
  });
}

/** Gives a local user a role (the everyone role removes theirs): UserPolicy#change_role? and User#validate_role_elevation. */
export function changeUserRole(app: App, actor: Actor, account: Account, role: UserRole): void {
  requireCan(actor, "manage_roles");
  const { user, role: current } = userAndRole(app, account);
  if (!user) throw forbidden();
  if (!outranks(actor, current)) throw forbidden();
  if (role.id !== EVERYONE_ROLE_ID && !outranks(actor, role)) throw unprocessable("Validation failed: Role cannot be higher than your current role");
  if (current?.id === role.id) return;
  tx(app.db, () => {
    setUserRoleId(app.db, user.id, role.id, app.now());
    audit(app, actor, "change_role", { type: "User", id: user.id, name: account.username }, { role: [current?.name || "everyone", role.name || "everyone"] });
  });
}
