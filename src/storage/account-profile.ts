import { type DB, type Row, stmt, num, json, idListJson, str, strOrNull, bool } from "../db/db.ts";
import { allRows, allRowsByTable } from "../db/rows.ts";
import type { Id } from "../lib/ids.ts";
import { type Account, rowToAccount } from "./accounts.ts";
import { rowToUser, type User } from "./users.ts";

// Account reads and writes used by the accounts API beyond storage/accounts.ts: plain-text
// profile fields (migration 0003), batched user lookups, the follow-request count, and the
// narrow reads the Account serializer needs.

export interface FieldSource {
  name: string;
  value: string;
}

export interface CredentialExtras {
  fieldSources: FieldSource[];
  followRequests: number;
  attributionDomains: string[];
}

/**
 * What a CredentialAccount adds, in one statement: the plain-text profile fields and the
 * pending follow requests from non-suspended accounts, counted up to `cap`.
 */
export function findCredentialExtras(db: DB, accountId: Id, cap: number): CredentialExtras {
  // The cap is written into the SQL: SQLite re-prepares a statement whose subquery LIMIT is
  // a bound parameter every time it is bound, which costs more than the count itself.
  const limit = Math.max(0, Math.trunc(cap));
  const r = stmt(
    db,
    `SELECT a.fields_source, a.attribution_domains, (SELECT count(*) FROM (
       SELECT 1 FROM follow_requests fr JOIN accounts f ON f.id = fr.account_id
       WHERE fr.target_account_id = a.id AND f.suspended_at IS NULL LIMIT ${limit})) AS follow_requests
     FROM accounts a WHERE a.id = ?`,
  ).get(BigInt(accountId)) as Row | undefined;
  return {
    fieldSources: json<FieldSource[]>(r?.fields_source, []),
    followRequests: r ? num(r.follow_requests) : 0,
    attributionDomains: json<string[]>(r?.attribution_domains, []),
  };
}

export function updateFieldSources(db: DB, accountId: Id, fields: FieldSource[]): void {
  stmt(db, "UPDATE accounts SET fields_source = ? WHERE id = ?").run(JSON.stringify(fields), BigInt(accountId));
}

/** What GET/PATCH /api/v1/profile edits beyond the Account row's mapped columns (migration 0026). */
export interface ProfileSettings {
  avatarDescription: string;
  headerDescription: string;
  showMedia: boolean;
  showMediaReplies: boolean;
  showFeatured: boolean;
  attributionDomains: string[];
}

const SETTING_COLUMNS: Record<keyof ProfileSettings, string> = {
  avatarDescription: "avatar_description",
  headerDescription: "header_description",
  showMedia: "show_media",
  showMediaReplies: "show_media_replies",
  showFeatured: "show_featured",
  attributionDomains: "attribution_domains",
};

export function findProfileSettings(db: DB, accountId: Id): ProfileSettings {
  const r = (stmt(
    db,
    `SELECT avatar_description, header_description, show_media, show_media_replies, show_featured, attribution_domains
     FROM accounts WHERE id = ?`,
  ).get(BigInt(accountId)) ?? {}) as Row;
  return {
    avatarDescription: (r.avatar_description as string | undefined) ?? "",
    headerDescription: (r.header_description as string | undefined) ?? "",
    showMedia: r.show_media === undefined || bool(r.show_media),
    showMediaReplies: r.show_media_replies === undefined || bool(r.show_media_replies),
    showFeatured: r.show_featured === undefined || bool(r.show_featured),
    attributionDomains: json<string[]>(r.attribution_domains, []),
  };
}

export function updateProfileSettings(db: DB, accountId: Id, patch: Partial<ProfileSettings>): void {
  const keys = (Object.keys(patch) as (keyof ProfileSettings)[]).filter((k) => k in SETTING_COLUMNS && patch[k] !== undefined);
  if (keys.length === 0) return;
  const params: Record<string, unknown> = { id: BigInt(accountId) };
  for (const k of keys) {
    const v = patch[k];
    params[k] = typeof v === "boolean" ? (v ? 1 : 0) : Array.isArray(v) ? JSON.stringify(v) : v;
  }
  stmt(db, `UPDATE accounts SET ${keys.map((k) => `${SETTING_COLUMNS[k]} = @${k}`).join(", ")} WHERE id = @id`).run(params);
}

/** Users of local accounts, keyed by account id, in one query (roles, noindex, hidden states). */
export function findUsersByAccountIds(db: DB, accountIds: Iterable<Id>): Map<Id, User> {
  const out = new Map<Id, User>();
  const list = idListJson(accountIds);
  if (list === "[]") return out;
  for (const r of allRows(db, "SELECT * FROM users WHERE account_id IN (SELECT value FROM json_each(?))", list)) {
    const u = rowToUser(r);
    out.set(u.accountId, u);
  }
  return out;
}

/** What the Account entity shows of a local account's user. */
export interface UserBadge {
  /** users.role_id (null: the everyone role). */
  roleId: Id | null;
  noindex: boolean;
}

/** Role and noindex setting of the users of local accounts, keyed by account id; one narrow query. */
export function findUserBadges(db: DB, accountIds: Iterable<Id>): Map<Id, UserBadge> {
  const out = new Map<Id, UserBadge>();
  const list = idListJson(accountIds);
  if (list === "[]") return out;
  const rows = stmt(db, "SELECT account_id, role_id, settings FROM users WHERE account_id IN (SELECT value FROM json_each(?))").all(list) as Row[];
  for (const r of rows) out.set(str(r.account_id), userBadge(strOrNull(r.role_id), json<Record<string, unknown>>(r.settings, {})));
  return out;
}

/**
 * Accounts with their users' badges (absent for remote accounts), in one query. It runs even
 * for no ids, so a page costs the same queries whatever a cache in front of it holds.
 */
export function findAccountsWithBadges(db: DB, ids: Iterable<Id>): { account: Account; badge?: UserBadge }[] {
  const rows = allRowsByTable(
    db,
    `SELECT a.*, u.role_id, u.settings FROM accounts a LEFT JOIN users u ON u.account_id = a.id
     WHERE a.id IN (SELECT value FROM json_each(?))`,
    idListJson(new Set(ids)),
  );
  return rows.map((r) => ({
    account: rowToAccount(r.accounts),
    // settings is NOT NULL in users: null means no user (a remote account).
    badge: r.users.settings === null ? undefined : userBadge(strOrNull(r.users.role_id), json<Record<string, unknown>>(r.users.settings, {})),
  }));
}

export const userBadge = (roleId: Id | null, settings: Record<string, unknown>): UserBadge => ({ roleId, noindex: settings.noindex === true });
