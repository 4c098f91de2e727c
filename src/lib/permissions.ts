// Mastodon's role permissions (app/models/user_role.rb FLAGS; entities-core.md § Role): a
// bitmask per role, where `administrator` implies every flag and everyone's permissions are
// added to each role's. Pure bit arithmetic; roles themselves are rows (storage/user-roles.ts).

export const PERMISSIONS = {
  administrator: 1 << 0,
  view_devops: 1 << 1,
  view_audit_log: 1 << 2,
  view_dashboard: 1 << 3,
  manage_reports: 1 << 4,
  manage_federation: 1 << 5,
  manage_settings: 1 << 6,
  manage_blocks: 1 << 7,
  manage_taxonomies: 1 << 8,
  manage_appeals: 1 << 9,
  manage_users: 1 << 10,
  manage_invites: 1 << 11,
  manage_rules: 1 << 12,
  manage_announcements: 1 << 13,
  manage_custom_emojis: 1 << 14,
  manage_webhooks: 1 << 15,
  invite_users: 1 << 16,
  manage_roles: 1 << 17,
  manage_user_access: 1 << 18,
  delete_user_data: 1 << 19,
  view_feeds: 1 << 20,
  invite_bypass_approval: 1 << 21,
  manage_email_subscriptions: 1 << 22,
} as const;
export type Permission = keyof typeof PERMISSIONS;

export const PERMISSION_NAMES = Object.keys(PERMISSIONS) as Permission[];
export const ALL_PERMISSIONS = Object.values(PERMISSIONS).reduce((a, b) => a | b, 0);
/** What the everyone role may hold (Mastodon's Flags::SAFE): nothing that touches others. */
export const SAFE_PERMISSIONS = PERMISSIONS.invite_users | PERMISSIONS.invite_bypass_approval;

export const EVERYONE_ROLE_ID = "-99";
/** The everyone role's position: every named role outranks it unless placed below. */
export const EVERYONE_POSITION = -1;
/** Mastodon's POSITION_LIMIT (a signed 32-bit integer). */
export const POSITION_LIMIT = 2 ** 31 - 1;

export function isPermission(name: string): name is Permission {
  return Object.hasOwn(PERMISSIONS, name);
}

export function permissionBits(names: Iterable<Permission>): number {
  let bits = 0;
  for (const n of names) bits |= PERMISSIONS[n];
  return bits;
}

export function permissionNames(bits: number): Permission[] {
  return PERMISSION_NAMES.filter((n) => (bits & PERMISSIONS[n]) === PERMISSIONS[n]);
}

/**
 * A role's effective bitmask (UserRole#computed_permissions): its own bits plus everyone's,
 * and every bit when `administrator` is among them.
 */
export function computedPermissions(own: number, everyone: number): number {
  const p = own | everyone;
  return p & PERMISSIONS.administrator ? ALL_PERMISSIONS : p;
}

export function hasAnyPermission(computed: number, anyOf: readonly Permission[]): boolean {
  return anyOf.some((n) => (computed & PERMISSIONS[n]) === PERMISSIONS[n]);
}
