// Fixtures of the admin tests: staff of each built-in role with admin scopes, and the audit log.
import assert from "node:assert/strict";
import { listActionLogs, type ActionLog } from "../../src/storage/admin-action-logs.ts";
import type { TestServer, TestUser } from "../helpers/server.ts";

export const ADMIN_SCOPES = ["read", "write", "follow", "admin:read", "admin:write"];

export interface Staff {
  owner: TestUser;
  admin: TestUser;
  mod: TestUser;
  /** A user without a role, whose token carries the admin scopes anyway. */
  plain: TestUser;
}

export async function makeStaff(s: TestServer): Promise<Staff> {
  return {
    owner: await s.user("owner", { role: "owner", scopes: ADMIN_SCOPES }),
    admin: await s.user("admin1", { role: "admin", scopes: ADMIN_SCOPES }),
    mod: await s.user("mod1", { role: "moderator", scopes: ADMIN_SCOPES }),
    plain: await s.user("plain", { scopes: ADMIN_SCOPES }),
  };
}

/** The newest audit entry (optionally of one action), checked to exist. */
export function lastAudit(s: TestServer, action?: string): ActionLog {
  const [entry] = listActionLogs(s.app.db, { action, limit: 1 });
  assert.ok(entry, `no audit entry${action ? ` for ${action}` : ""}`);
  return entry;
}

export const auditCount = (s: TestServer) => listActionLogs(s.app.db, { limit: 10_000 }).length;
