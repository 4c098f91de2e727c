import { type DB, type Row, stmt, str, num, bool } from "../db/db.ts";
import type { Id } from "../lib/ids.ts";
import { EVERYONE_ROLE_ID } from "../lib/permissions.ts";

// Roles (Mastodon's UserRole, migration 0030). users.role_id NULL means the everyone role.

export interface UserRole {
  id: Id;
  name: string;
  color: string;
  position: number;
  /** The role's own bits (lib/permissions.ts computedPermissions adds everyone's). */
  permissions: number;
  highlighted: boolean;
  createdAt: number;
  updatedAt: number;
}

function rowToRole(r: Row): UserRole {
  return {
    id: str(r.id),
    name: r.name as string,
    color: r.color as string,
    position: num(r.position),
    permissions: num(r.permissions),
    highlighted: bool(r.highlighted),
    createdAt: num(r.created_at),
    updatedAt: num(r.updated_at),
  };
}

export function findRoleById(db: DB, id: Id): UserRole | undefined {
  if (!/^-?[0-9]{1,19}$/.test(id)) return undefined;
  const r = stmt(db, "SELECT * FROM user_roles WHERE id = ?").get(BigInt(id)) as Row | undefined;
  return r && rowToRole(r);
}

export function findRoleByName(db: DB, name: string): UserRole | undefined {
  const r = stmt(db, "SELECT * FROM user_roles WHERE id <> -99 AND lower(name) = lower(?) ORDER BY position DESC LIMIT 1").get(name) as Row | undefined;
  return r && rowToRole(r);
}

/** The everyone role (recreated with Mastodon's defaults if someone deleted the row). */
export function everyoneRole(db: DB): UserRole {
  const found = findRoleById(db, EVERYONE_ROLE_ID);
  if (found) return found;
  stmt(db, "INSERT OR IGNORE INTO user_roles (id, name, position, permissions, created_at, updated_at) VALUES (-99, '', -1, 65536, 0, 0)").run();
  return findRoleById(db, EVERYONE_ROLE_ID)!;
}

/** Every role, highest position first (the everyone role last). */
export function listRoles(db: DB): UserRole[] {
  return (stmt(db, "SELECT * FROM user_roles ORDER BY position DESC, id").all() as Row[]).map(rowToRole);
}

export function insertRole(db: DB, r: UserRole): void {
  stmt(
    db,
    `INSERT INTO user_roles (id, name, color, position, permissions, highlighted, created_at, updated_at)
     VALUES (@id, @name, @color, @position, @permissions, @highlighted, @createdAt, @updatedAt)`,
  ).run({ ...r, id: BigInt(r.id), highlighted: r.highlighted ? 1 : 0 });
}

export function updateRole(db: DB, r: UserRole): void {
  stmt(
    db,
    `UPDATE user_roles SET name = @name, color = @color, position = @position, permissions = @permissions,
       highlighted = @highlighted, updated_at = @updatedAt WHERE id = @id`,
  ).run({ id: BigInt(r.id), name: r.name, color: r.color, position: r.position, permissions: r.permissions, highlighted: r.highlighted ? 1 : 0, updatedAt: r.updatedAt });
}

/** Deletes a role; its users fall back to everyone (ON DELETE SET NULL). */
export function deleteRole(db: DB, id: Id): void {
  stmt(db, "DELETE FROM user_roles WHERE id = ?").run(BigInt(id));
}

export function countUsersWithRole(db: DB, id: Id): number {
  return num((stmt(db, "SELECT count(*) AS n FROM users WHERE role_id = ?").get(BigInt(id)) as Row).n);
}

/** Ids of the roles whose computed permissions include any of `bits` (Mastodon's UserRole.that_can). */
export function roleIdsWithAnyBits(db: DB, bits: number): Id[] {
  return (stmt(db, "SELECT id FROM user_roles WHERE id <> -99 AND (permissions & 1 OR permissions & ?)").all(bits) as Row[]).map((r) => str(r.id));
}

export function setUserRoleId(db: DB, userId: Id, roleId: Id | null, now: number): void {
  stmt(db, "UPDATE users SET role_id = ?, updated_at = ? WHERE id = ?").run(
    roleId === null || roleId === EVERYONE_ROLE_ID ? null : BigInt(roleId),
    now,
    BigInt(userId),
  );
}
