// https://docs.joinmastodon.org/entities/Role/ — roost's three roles shown as Mastodon's.
import type { Role } from "../storage/users.ts";

/** Mastodon's UserRole permission flags (entities-core.md § Role). */
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

const ALL = Object.values(PERMISSIONS).reduce((a, b) => a | b, 0);
const bits = (...names: Permission[]) => names.reduce((a, n) => a | PERMISSIONS[n], 0);

export interface ApiRole {
  id: string;
  name: string;
  permissions: string;
  color: string;
  highlighted: boolean;
}

// Mastodon's seeded roles (config/roles.yml): "everyone" has the fixed id -99 and only
// invite_users; Moderator and the top role are highlighted (shown as a profile badge).
// roost's admin is the instance operator, so it carries the administrator flag (all
// permissions), as Mastodon's Owner role does.
const ROLES: Record<Role, { id: string; name: string; permissions: number; highlighted: boolean }> = {
  user: { id: "-99", name: "", permissions: bits("invite_users"), highlighted: false },
  moderator: {
    id: "1",
    name: "Moderator",
    permissions: bits(
      "invite_users",
      "view_dashboard",
      "view_audit_log",
      "view_feeds",
      "manage_users",
      "manage_reports",
      "manage_taxonomies",
    ),
    highlighted: true,
  },
  admin: { id: "3", name: "Admin", permissions: ALL, highlighted: true },
};

/** Computed permission bitmask of a role (administrator implies every flag). */
export function rolePermissions(role: Role): number {
  const p = ROLES[role].permissions;
  return p & PERMISSIONS.administrator ? ALL : p;
}

export function roleCan(role: Role, ...anyOf: Permission[]): boolean {
  const p = rolePermissions(role);
  return anyOf.some((n) => (p & PERMISSIONS[n]) === PERMISSIONS[n]);
}

/** The Role entity (CredentialAccount.role, Admin::Account.role). */
export function toApiRole(role: Role): ApiRole {
  const r = ROLES[role];
  return { id: r.id, name: r.name, permissions: String(rolePermissions(role)), color: "", highlighted: r.highlighted };
}

/** AccountRole entries of Account.roles: highlighted roles only. */
export function toApiAccountRoles(role: Role): { id: string; name: string; color: string }[] {
  const r = ROLES[role];
  return r.highlighted ? [{ id: r.id, name: r.name, color: "" }] : [];
}
