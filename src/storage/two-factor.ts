import { type DB, type Row, stmt, str, num, numOrNull } from "../db/db.ts";
import type { Id } from "../lib/ids.ts";

// Two-factor rows (migration 0054): the TOTP secret, recovery codes and half-finished sign-ins.

export interface UserOtp {
  userId: Id;
  secretBox: string;
  enabledAt: number | null;
  lastStep: number;
  failedCount: number;
  failedSince: number;
}

function rowToUserOtp(r: Row): UserOtp {
  return {
    userId: str(r.user_id),
    secretBox: r.secret_box as string,
    enabledAt: numOrNull(r.enabled_at),
    lastStep: num(r.last_step),
    failedCount: num(r.failed_count),
    failedSince: num(r.failed_since),
  };
}

export function findUserOtp(db: DB, userId: Id): UserOtp | undefined {
  const r = stmt(db, "SELECT * FROM user_otp WHERE user_id = ?").get(BigInt(userId)) as Row | undefined;
  return r && rowToUserOtp(r);
}

/** Starts (or restarts) a set-up: a new secret, not yet enabled. */
export function upsertPendingOtp(db: DB, userId: Id, secretBox: string, now: number): void {
  stmt(
    db,
    `INSERT INTO user_otp (user_id, secret_box, enabled_at, created_at) VALUES (@userId, @secretBox, NULL, @now)
     ON CONFLICT (user_id) DO UPDATE SET secret_box = excluded.secret_box, enabled_at = NULL, last_step = 0,
       failed_count = 0, failed_since = 0, created_at = excluded.created_at`,
  ).run({ userId: BigInt(userId), secretBox, now });
}

export function updateUserOtp(db: DB, userId: Id, f: Partial<Pick<UserOtp, "enabledAt" | "lastStep" | "failedCount" | "failedSince">>): void {
  const cols: Record<string, string> = { enabledAt: "enabled_at", lastStep: "last_step", failedCount: "failed_count", failedSince: "failed_since" };
  const keys = Object.keys(f).filter((k) => k in cols);
  if (keys.length === 0) return;
  const sql = `UPDATE user_otp SET ${keys.map((k) => `${cols[k]} = @${k}`).join(", ")} WHERE user_id = @userId`;
  stmt(db, sql).run({ ...f, userId: BigInt(userId) });
}

export function deleteUserOtp(db: DB, userId: Id): void {
  stmt(db, "DELETE FROM user_otp WHERE user_id = ?").run(BigInt(userId));
}

export function replaceRecoveryCodes(db: DB, userId: Id, hashes: string[]): void {
  stmt(db, "DELETE FROM user_recovery_codes WHERE user_id = ?").run(BigInt(userId));
  const ins = stmt(db, "INSERT INTO user_recovery_codes (user_id, code_hash) VALUES (?, ?)");
  for (const h of hashes) ins.run(BigInt(userId), h);
}

export function deleteRecoveryCodes(db: DB, userId: Id): void {
  stmt(db, "DELETE FROM user_recovery_codes WHERE user_id = ?").run(BigInt(userId));
}

/** Marks an unused code used; true when it was there and unused (so a code works once, even in a race). */
export function consumeRecoveryCode(db: DB, userId: Id, hash: string, now: number): boolean {
  return stmt(db, "UPDATE user_recovery_codes SET used_at = ? WHERE user_id = ? AND code_hash = ? AND used_at IS NULL").run(now, BigInt(userId), hash).changes === 1;
}

export function countUnusedRecoveryCodes(db: DB, userId: Id): number {
  return num((stmt(db, "SELECT count(*) AS n FROM user_recovery_codes WHERE user_id = ? AND used_at IS NULL").get(BigInt(userId)) as Row).n);
}

export interface TwoFactorChallenge {
  userId: Id;
  userAgent: string | null;
  ip: string | null;
  expiresAt: number;
}

export function insertChallenge(db: DB, tokenHash: string, c: TwoFactorChallenge): void {
  stmt(db, "INSERT INTO two_factor_challenges (token_hash, user_id, user_agent, ip, expires_at) VALUES (?, ?, ?, ?, ?)").run(
    tokenHash,
    BigInt(c.userId),
    c.userAgent,
    c.ip,
    c.expiresAt,
  );
}

export function findChallenge(db: DB, tokenHash: string): TwoFactorChallenge | undefined {
  const r = stmt(db, "SELECT * FROM two_factor_challenges WHERE token_hash = ?").get(tokenHash) as Row | undefined;
  return r && { userId: str(r.user_id), userAgent: (r.user_agent as string | null) ?? null, ip: (r.ip as string | null) ?? null, expiresAt: num(r.expires_at) };
}

export function deleteChallenge(db: DB, tokenHash: string): void {
  stmt(db, "DELETE FROM two_factor_challenges WHERE token_hash = ?").run(tokenHash);
}

export function deleteChallengesOfUser(db: DB, userId: Id): void {
  stmt(db, "DELETE FROM two_factor_challenges WHERE user_id = ?").run(BigInt(userId));
}

export function deleteExpiredChallenges(db: DB, now: number): void {
  stmt(db, "DELETE FROM two_factor_challenges WHERE expires_at <= ?").run(now);
}
