import type { App } from "../app.ts";
import { EVERYONE_ROLE_ID, permissionNames } from "../lib/permissions.ts";
import { countUsersWithRole, type UserRole } from "../storage/user-roles.ts";

/** A role as `roost roles` shows it. */
export function roleRow(app: App, r: UserRole): Record<string, unknown> {
  const everyone = r.id === EVERYONE_ROLE_ID;
  return {
    id: r.id,
    name: everyone ? "everyone" : r.name,
    position: r.position,
    highlighted: r.highlighted,
    color: r.color || null,
    users: everyone ? null : countUsersWithRole(app.db, r.id),
    permissions: permissionNames(r.permissions),
  };
}
