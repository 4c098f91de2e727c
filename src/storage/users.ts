import { type DB, type Row, stmt, str, strOrNull, num, numOrNull, bool, json } from "../db/db.ts";
import { getRow } from "../db/rows.ts";
import type { Id } from "../lib/ids.ts";

export type Privacy = "public" | "unlisted" | "private" | "direct";

export interface User {
  id: Id;
  accountId: Id;
  email: string;
  passwordHash: string | null;
  /** users.role_id: null for the everyone role (storage/user-roles.ts). */
  roleId: Id | null;
  confirmedAt: number | null;
  approved: boolean;
  disabled: boolean;
  locale: string | null;
  reason: string | null;
  defaultPrivacy: Privacy;
  defaultSensitive: boolean;
  defaultLanguage: string | null;
  settings: Record<string, unknown>;
  createdByAppId: Id | null;
  /** Who invited the user (migration 0031). */
  invitedByAccountId: Id | null;
  signUpIp: string | null;
  currentSignInAt: number | null;
  lastSignInAt: number | null;
  createdAt: number;
  updatedAt: number;
}

export function rowToUser(r: Row): User {
  return {
    id: str(r.id),
    accountId: str(r.account_id),
    email: r.email as string,
    passwordHash: (r.password_hash as string | null) ?? null,
    roleId: strOrNull(r.role_id),
    confirmedAt: numOrNull(r.confirmed_at),
    approved: bool(r.approved),
    disabled: bool(r.disabled),
    locale: (r.locale as string | null) ?? null,
    reason: (r.reason as string | null) ?? null,
    defaultPrivacy: r.default_privacy as Privacy,
    defaultSensitive: bool(r.default_sensitive),
    defaultLanguage: (r.default_language as string | null) ?? null,
    settings: json<Record<string, unknown>>(r.settings, {}),
    createdByAppId: r.created_by_app_id === null || r.created_by_app_id === undefined ? null : str(r.created_by_app_id),
    invitedByAccountId: strOrNull(r.invited_by_account_id),
    signUpIp: (r.sign_up_ip as string | null) ?? null,
    currentSignInAt: numOrNull(r.current_sign_in_at),
    lastSignInAt: numOrNull(r.last_sign_in_at),
    createdAt: num(r.created_at),
    updatedAt: num(r.updated_at),
  };
}

export interface NewUser {
  id: Id;
  accountId: Id;
  email: string;
  passwordHash: string | null;
  roleId: Id | null;
  confirmedAt: number | null;
  approved: boolean;
  locale?: string | null;
  reason?: string | null;
  signUpIp?: string | null;
  createdByAppId?: Id | null;
  /** The invite signed up with and its creator's account (migration 0047, 0031). */
  inviteId?: Id | null;
  invitedByAccountId?: Id | null;
  createdAt: number;
}

export function insertUser(db: DB, u: NewUser): void {
  stmt(
    db,
    `INSERT INTO users (id, account_id, email, password_hash, role_id, confirmed_at, approved, locale, reason,
       sign_up_ip, created_by_app_id, invite_id, invited_by_account_id, created_at, updated_at)
     VALUES (@id, @accountId, @email, @passwordHash, @roleId, @confirmedAt, @approved, @locale, @reason,
       @signUpIp, @createdByAppId, @inviteId, @invitedByAccountId, @createdAt, @createdAt)`,
  ).run({
    id: BigInt(u.id),
    accountId: BigInt(u.accountId),
    email: u.email,
    passwordHash: u.passwordHash,
    roleId: u.roleId ? BigInt(u.roleId) : null,
    confirmedAt: u.confirmedAt,
    approved: u.approved ? 1 : 0,
    locale: u.locale ?? null,
    reason: u.reason ?? null,
    signUpIp: u.signUpIp ?? null,
    createdByAppId: u.createdByAppId ? BigInt(u.createdByAppId) : null,
    inviteId: u.inviteId ? BigInt(u.inviteId) : null,
    invitedByAccountId: u.invitedByAccountId ? BigInt(u.invitedByAccountId) : null,
    createdAt: u.createdAt,
  });
}

export function findUserById(db: DB, id: Id): User | undefined {
  const r = getRow(db, "SELECT * FROM users WHERE id = ?", BigInt(id));
  return r && rowToUser(r);
}

export function findUserByAccountId(db: DB, accountId: Id): User | undefined {
  const r = getRow(db, "SELECT * FROM users WHERE account_id = ?", BigInt(accountId));
  return r && rowToUser(r);
}

export function findUserByEmail(db: DB, email: string): User | undefined {
  const r = stmt(db, "SELECT * FROM users WHERE email = ?").get(email) as Row | undefined;
  return r && rowToUser(r);
}

/** Login by e-mail or local username. */
export function findUserByLogin(db: DB, login: string): User | undefined {
  const r = stmt(
    db,
    `SELECT users.* FROM users JOIN accounts ON accounts.id = users.account_id
     WHERE users.email = @login OR (accounts.domain IS NULL AND lower(accounts.username) = lower(@login))
     LIMIT 1`,
  ).get({ login }) as Row | undefined;
  return r && rowToUser(r);
}

const USER_COLUMNS: Record<string, string> = {
  email: "email",
  passwordHash: "password_hash",
  confirmedAt: "confirmed_at",
  approved: "approved",
  disabled: "disabled",
  locale: "locale",
  defaultPrivacy: "default_privacy",
  defaultSensitive: "default_sensitive",
  defaultLanguage: "default_language",
  settings: "settings",
  currentSignInAt: "current_sign_in_at",
  lastSignInAt: "last_sign_in_at",
  updatedAt: "updated_at",
};

export function updateUser(db: DB, id: Id, patch: Partial<User>): void {
  const keys = Object.keys(patch).filter((k) => k in USER_COLUMNS);
  if (keys.length === 0) return;
  const params: Record<string, unknown> = { id: BigInt(id) };
  for (const k of keys) {
    const v = (patch as Record<string, unknown>)[k];
    params[k] = typeof v === "boolean" ? (v ? 1 : 0) : k === "settings" ? JSON.stringify(v) : v;
  }
  stmt(db, `UPDATE users SET ${keys.map((k) => `${USER_COLUMNS[k]} = @${k}`).join(", ")} WHERE id = @id`).run(params);
}

/** Records that the user was active today (NodeInfo activeMonth, instance activity logins). */
export function recordActivityDay(db: DB, userId: Id, day: number): void {
  stmt(db, "INSERT OR IGNORE INTO user_activity_days (user_id, day) VALUES (?, ?)").run(BigInt(userId), day);
}

export function countActiveUsersSince(db: DB, since: number): number {
  return num(
    (stmt(db, "SELECT count(DISTINCT user_id) AS n FROM user_activity_days WHERE day >= ?").get(since) as Row).n,
  );
}

/** True when the account belongs to a local user (has a home feed, can be notified). */
export function isLocalUserAccount(db: DB, accountId: Id): boolean {
  return !!stmt(db, "SELECT 1 FROM users WHERE account_id = ?").get(BigInt(accountId));
}

/**
 * Accounts of the staff who handle reports: users who can sign in and whose role may manage
 * reports (Mastodon's User.those_who_can(:manage_reports); bit 0 is administrator, 16 manage_reports).
 */
export function staffAccountIds(db: DB): Id[] {
  const rows = stmt(
    db,
    `SELECT u.account_id FROM users u JOIN user_roles r ON r.id = u.role_id
     WHERE (r.permissions & 17) <> 0 AND u.disabled = 0 AND u.approved = 1 AND u.confirmed_at IS NOT NULL`,
  ).all() as Row[];
  return rows.map((r) => str(r.account_id));
}

/**
 * The instance owner: the earliest-created user, among those who can sign in, of the highest
 * role held by anyone (Owner, else Admin ...). The CLI acts as this user unless told `--as`.
 */
export function findOwnerUser(db: DB): { userId: Id; accountId: Id; position: number } | undefined {
  const r = stmt(
    db,
    `SELECT u.id, u.account_id, r.position FROM users u JOIN user_roles r ON r.id = u.role_id
     JOIN accounts a ON a.id = u.account_id
     WHERE u.confirmed_at IS NOT NULL AND u.approved = 1 AND u.disabled = 0 AND a.suspended_at IS NULL
     ORDER BY r.position DESC, u.id LIMIT 1`,
  ).get() as Row | undefined;
  return r && { userId: str(r.id), accountId: str(r.account_id), position: num(r.position) };
}

/** The address an e-mail change waits to confirm (migration 0053), or null. */
export function findUnconfirmedEmail(db: DB, userId: Id): string | null {
  const r = stmt(db, "SELECT unconfirmed_email FROM users WHERE id = ?").get(BigInt(userId)) as Row | undefined;
  return (r?.unconfirmed_email as string | null | undefined) ?? null;
}

export function setUnconfirmedEmail(db: DB, userId: Id, email: string | null): void {
  stmt(db, "UPDATE users SET unconfirmed_email = ? WHERE id = ?").run(email, BigInt(userId));
}
