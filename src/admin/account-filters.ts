import type { App } from "../app.ts";
import type { Id } from "../lib/ids.ts";
import { PERMISSIONS } from "../lib/permissions.ts";
import { roleIdsWithAnyBits } from "../storage/user-roles.ts";

/** "Staff": the roles that may manage reports (Mastodon's UserRole.that_can(:manage_reports)). */
export function staffRoleIds(app: App): Id[] {
  return roleIdsWithAnyBits(app.db, PERMISSIONS.manage_reports);
}
