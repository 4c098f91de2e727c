import { type DB, type Row, stmt, str } from "../db/db.ts";
import type { Id } from "../lib/ids.ts";
import { EVERYONE_ROLE_ID } from "../lib/permissions.ts";

// The admin account listing (Mastodon's AccountFilter behind GET /api/{v1,v2}/admin/accounts):
// one query of the filters that are on, newest first, keyset-paged.

export type AccountStatusFilter = "active" | "pending" | "disabled" | "silenced" | "suspended" | "sensitized";

export interface AdminAccountFilter {
  origin?: "local" | "remote";
  status?: AccountStatusFilter;
  byDomain?: string;
  /** Case-insensitive prefixes. */
  username?: string;
  displayName?: string;
  email?: string;
  /** Sign-in addresses inside this range of lib/ip-keys.ts keys; null: an invalid address (nothing matches). */
  ipRange?: { first: string; last: string } | null;
  /** Role ids; "-99" stands for the everyone role (users without one). */
  roleIds?: Id[];
  invitedBy?: Id;
  maxId?: Id;
  sinceId?: Id;
  minId?: Id;
  limit: number;
}

const likePrefix = (s: string) => s.replace(/[\\%_]/g, (c) => "\\" + c) + "%";

const STATUS_SQL: Record<AccountStatusFilter, string> = {
  active: "a.suspended_at IS NULL",
  pending: "u.approved = 0",
  disabled: "u.disabled = 1 AND a.suspended_at IS NULL",
  silenced: "a.silenced_at IS NOT NULL",
  suspended: "a.suspended_at IS NOT NULL",
  sensitized: "a.sensitized_at IS NOT NULL",
};

/** Ids of the accounts that pass every filter, newest first. */
export function filterAdminAccountIds(db: DB, f: AdminAccountFilter): Id[] {
  if (f.ipRange === null) return [];
  const where: string[] = [];
  const params: Record<string, unknown> = { limit: BigInt(f.limit) };
  if (f.origin === "local") where.push("a.domain IS NULL");
  else if (f.origin === "remote") where.push("a.domain IS NOT NULL");
  if (f.status) where.push(STATUS_SQL[f.status]);
  if (f.byDomain !== undefined) {
    where.push("lower(a.domain) = lower(@byDomain)");
    params.byDomain = f.byDomain;
  }
  if (f.username !== undefined) {
    where.push("a.username LIKE @username ESCAPE '\\'");
    params.username = likePrefix(f.username);
  }
  if (f.displayName !== undefined) {
    where.push("a.display_name LIKE @displayName ESCAPE '\\'");
    params.displayName = likePrefix(f.displayName);
  }
  if (f.email !== undefined) {
    where.push("u.email LIKE @email ESCAPE '\\'");
    params.email = likePrefix(f.email);
  }
  if (f.ipRange) {
    where.push("u.id IN (SELECT user_id FROM user_ips WHERE ip_key BETWEEN @ipFirst AND @ipLast)");
    params.ipFirst = f.ipRange.first;
    params.ipLast = f.ipRange.last;
  }
  if (f.roleIds) {
    const ids = f.roleIds.filter((id) => /^[0-9]{1,19}$/.test(id));
    const everyone = f.roleIds.includes(EVERYONE_ROLE_ID);
    const terms = [];
    if (ids.length) {
      terms.push("u.role_id IN (SELECT value FROM json_each(@roleIds))");
      params.roleIds = "[" + ids.join(",") + "]";
    }
    if (everyone) terms.push("(u.id IS NOT NULL AND u.role_id IS NULL)");
    where.push(terms.length ? `(${terms.join(" OR ")})` : "0");
  }
  if (f.invitedBy !== undefined) {
    where.push("u.invited_by_account_id = @invitedBy");
    params.invitedBy = /^[0-9]{1,19}$/.test(f.invitedBy) ? BigInt(f.invitedBy) : -1n;
  }
  let order = "DESC";
  if (f.maxId) {
    where.push("a.id < @maxId");
    params.maxId = BigInt(f.maxId);
  }
  if (f.minId) {
    where.push("a.id > @minId");
    params.minId = BigInt(f.minId);
    order = "ASC";
  } else if (f.sinceId) {
    where.push("a.id > @sinceId");
    params.sinceId = BigInt(f.sinceId);
  }
  const sql = `SELECT a.id FROM accounts a LEFT JOIN users u ON u.account_id = a.id
    ${where.length ? "WHERE " + where.join(" AND ") : ""} ORDER BY a.id ${order} LIMIT @limit`;
  const ids = (stmt(db, sql).all(params) as Row[]).map((r) => str(r.id));
  return order === "ASC" ? ids.reverse() : ids;
}
