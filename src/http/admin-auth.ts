import type { H3Event } from "h3";
import type { App } from "../app.ts";
import { type Actor, makeActor, requireCan } from "../admin/actor.ts";
import type { Permission } from "../lib/permissions.ts";
import { requireStaffToken } from "./auth.ts";

// The one check every admin route makes first (src/admin/DESIGN.md):
//   const actor = requirePermission(app, event, ADMIN_READ_ACCOUNTS, "manage_users");
// scope (403 "This action is outside the authorized scopes"), then the role's permission
// (403 "This action is not allowed"); no token at all is a 403 too (endpoints-admin.md).
// Checks that depend on the record (rank, state) are the admin/ use case's.

/** Mastodon's admin scope pairs: the broad one or the resource's own. */
export const adminScopes = (mode: "read" | "write", resource: string): string[] => [`admin:${mode}`, `admin:${mode}:${resource}`];

export function requirePermission(app: App, event: H3Event, scopes: readonly string[], ...anyOf: Permission[]): Actor {
  const viewer = requireStaffToken(app, event, ...scopes);
  const actor = makeActor(app, viewer.user, viewer.account, "api");
  if (anyOf.length) requireCan(actor, ...anyOf);
  return actor;
}
