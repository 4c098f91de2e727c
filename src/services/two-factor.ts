import { randomBytes } from "node:crypto";
import * as OTPAuth from "otpauth";
import type { App } from "../app.ts";
import { tx } from "../db/db.ts";
import { sha256Hex, verifyPassword } from "../lib/crypto.ts";
import { seal, unseal } from "../lib/sealed-box.ts";
import { findAccountById } from "../storage/accounts.ts";
import { type User, findUserById } from "../storage/users.ts";
import {
  consumeRecoveryCode,
  countUnusedRecoveryCodes,
  deleteChallenge,
  deleteChallengesOfUser,
  deleteRecoveryCodes,
  deleteUserOtp,
  findChallenge,
  findUserOtp,
  replaceRecoveryCodes,
  updateUserOtp,
  upsertPendingOtp,
  type UserOtp,
} from "../storage/two-factor.ts";
import { enqueueMail } from "../mail/queue.ts";
import { recoveryCodesChangedMail } from "../mail/messages.ts";
import { openSession, refusal } from "./web-sessions.ts";

// Two-factor authentication with TOTP (RFC 6238: 6 digits, 30 s, SHA-1, what every
// authenticator app reads, as Mastodon's devise-two-factor uses) and single-use recovery codes.

const SECRET_PURPOSE = "totp secret";
const PERIOD_S = 30;
/** Codes one step either side are accepted (clock drift), as Mastodon's otp_allowed_drift of 60 s. */
const WINDOW = 1;
export const RECOVERY_CODE_COUNT = 10;
/** Wrong codes allowed per account per window before further attempts are refused unchecked. */
export const OTP_FAILURE_LIMIT = 5;
export const OTP_FAILURE_WINDOW_MS = 5 * 60_000;
const MAX_CODE = 100;

export interface TwoFactorState {
  enabled: boolean;
  unusedRecoveryCodes: number;
}

export function twoFactorState(app: App, userId: string): TwoFactorState {
  const otp = findUserOtp(app.db, userId);
  return { enabled: otp?.enabledAt != null, unusedRecoveryCodes: otp?.enabledAt != null ? countUnusedRecoveryCodes(app.db, userId) : 0 };
}

function totpFor(app: App, label: string, base32: string): OTPAuth.TOTP {
  return new OTPAuth.TOTP({ issuer: app.config.domain, label, algorithm: "SHA1", digits: 6, period: PERIOD_S, secret: OTPAuth.Secret.fromBase32(base32) });
}

function secretOf(app: App, otp: UserOtp): string {
  const s = unseal(app.config.secret, SECRET_PURPOSE, otp.secretBox);
  if (!s) throw new Error("two-factor secret cannot be unsealed (server secret changed?)");
  return s;
}

export interface PendingSetup {
  secret: string;
  uri: string;
  qrSvg: string;
}

async function describeSetup(app: App, username: string, secret: string): Promise<PendingSetup> {
  const uri = totpFor(app, `${username}@${app.config.domain}`, secret).toString();
  // Loaded on first use (idle memory).
  const { default: QRCode } = await import("qrcode");
  const qrSvg = await QRCode.toString(uri, { type: "svg", errorCorrectionLevel: "M", margin: 2 });
  return { secret, uri, qrSvg };
}

/** Starts setting up (a fresh secret each time); null when two-factor is already on. */
export async function beginTwoFactorSetup(app: App, user: User, username: string): Promise<PendingSetup | null> {
  if (findUserOtp(app.db, user.id)?.enabledAt != null) return null;
  const secret = new OTPAuth.Secret({ size: 20 }).base32;
  upsertPendingOtp(app.db, user.id, seal(app.config.secret, SECRET_PURPOSE, secret), app.now());
  return describeSetup(app, username, secret);
}

/** The set-up in progress (to show it again after a wrong code), or null. */
export async function pendingTwoFactorSetup(app: App, user: User, username: string): Promise<PendingSetup | null> {
  const otp = findUserOtp(app.db, user.id);
  if (!otp || otp.enabledAt !== null) return null;
  return describeSetup(app, username, secretOf(app, otp));
}

/** The time step a TOTP code matches, or null. */
function matchTotp(app: App, otp: UserOtp, code: string): number | null {
  if (!/^\d{6}$/.test(code)) return null;
  const now = app.now();
  const delta = totpFor(app, "x", secretOf(app, otp)).validate({ token: code, timestamp: now, window: WINDOW });
  if (delta === null) return null;
  const step = Math.floor(now / 1000 / PERIOD_S) + delta;
  // A code already used (or an older one) is refused: an observed code cannot be replayed.
  return step > otp.lastStep ? step : null;
}

function newRecoveryCodes(): { codes: string[]; hashes: string[] } {
  // 80 random bits each: far beyond offline guessing, so a fast hash (sha-256) suffices and
  // checking a code costs no scrypt round per stored code (devise uses bcrypt on 64-bit codes).
  const codes = Array.from({ length: RECOVERY_CODE_COUNT }, () => randomBytes(10).toString("hex"));
  return { codes, hashes: codes.map(hashRecoveryCode) };
}

function hashRecoveryCode(code: string): string {
  return sha256Hex(`roost-recovery:${code}`);
}

function normaliseRecoveryCode(code: string): string {
  return code.toLowerCase().replace(/[\s-]/g, "");
}

/** Confirms the set-up with a first code: two-factor is on and the recovery codes (shown once) are returned; null for a wrong code. */
export function confirmTwoFactorSetup(app: App, user: User, code: string): string[] | null {
  const otp = findUserOtp(app.db, user.id);
  if (!otp || otp.enabledAt !== null) return null;
  const step = matchTotp(app, otp, code.trim().slice(0, MAX_CODE));
  if (step === null) return null;
  const { codes, hashes } = newRecoveryCodes();
  tx(app.db, () => {
    updateUserOtp(app.db, user.id, { enabledAt: app.now(), lastStep: step, failedCount: 0, failedSince: 0 });
    replaceRecoveryCodes(app.db, user.id, hashes);
  });
  return codes;
}

export type CodeCheck = { ok: true } | { ok: false; reason: "wrong" } | { ok: false; reason: "throttled"; retryMs: number };

/**
 * Checks a second factor: a TOTP code (6 digits) or an unused recovery code, which is then
 * used up. Wrong codes are counted per account: past OTP_FAILURE_LIMIT in a window, attempts
 * are refused without being checked until the window ends.
 */
export function checkSecondFactor(app: App, userId: string, rawCode: string): CodeCheck {
  const otp = findUserOtp(app.db, userId);
  if (!otp || otp.enabledAt === null) return { ok: false, reason: "wrong" };
  const now = app.now();
  const windowOpen = now - otp.failedSince < OTP_FAILURE_WINDOW_MS;
  if (windowOpen && otp.failedCount >= OTP_FAILURE_LIMIT) return { ok: false, reason: "throttled", retryMs: otp.failedSince + OTP_FAILURE_WINDOW_MS - now };
  const code = rawCode.trim().slice(0, MAX_CODE);
  const step = matchTotp(app, otp, code);
  if (step !== null) {
    updateUserOtp(app.db, userId, { lastStep: step, failedCount: 0, failedSince: 0 });
    return { ok: true };
  }
  const recovery = normaliseRecoveryCode(code);
  if (/^[0-9a-f]{20}$/.test(recovery) && consumeRecoveryCode(app.db, userId, hashRecoveryCode(recovery), now)) return { ok: true };
  updateUserOtp(app.db, userId, windowOpen ? { failedCount: otp.failedCount + 1 } : { failedCount: 1, failedSince: now });
  return { ok: false, reason: "wrong" };
}

export type CompleteResult =
  | { ok: true; sessionId: string }
  | { ok: false; reason: "expired" | "wrong" | "refused" }
  | { ok: false; reason: "throttled"; retryMs: number };

/** The code step of a sign-in: on the right code the half-finished sign-in becomes a session. */
export function completeTwoFactorSignIn(app: App, rawChallenge: string | undefined, code: string): CompleteResult {
  if (!rawChallenge || rawChallenge.length > 200) return { ok: false, reason: "expired" };
  const hash = sha256Hex(rawChallenge);
  const challenge = findChallenge(app.db, hash);
  if (!challenge || challenge.expiresAt <= app.now()) return { ok: false, reason: "expired" };
  const user = findUserById(app.db, challenge.userId);
  const account = user && findAccountById(app.db, user.accountId);
  if (!user || !account || refusal(user, account)) {
    deleteChallenge(app.db, hash);
    return { ok: false, reason: "refused" };
  }
  const check = checkSecondFactor(app, user.id, code);
  if (!check.ok) return check;
  deleteChallenge(app.db, hash);
  const opened = openSession(app, user, account, { userAgent: challenge.userAgent, ip: challenge.ip });
  return { ok: true, sessionId: opened.sessionId };
}

/** Whether a half-finished sign-in token is still open (to show the code form). */
export function challengeOpen(app: App, rawChallenge: string | undefined): boolean {
  if (!rawChallenge || rawChallenge.length > 200) return false;
  const c = findChallenge(app.db, sha256Hex(rawChallenge));
  return !!c && c.expiresAt > app.now();
}

/** Removes two-factor without a proof: only for the admin (src/admin/two-factor.ts audits it). */
export function removeTwoFactor(app: App, userId: string): void {
  tx(app.db, () => {
    deleteUserOtp(app.db, userId);
    deleteRecoveryCodes(app.db, userId);
    deleteChallengesOfUser(app.db, userId);
  });
}

export type DisableResult = { ok: true } | { ok: false; reason: "wrong" } | { ok: false; reason: "throttled"; retryMs: number };

/** A change to two-factor itself needs the password or a second factor (a wrong code counts towards the throttle). */
async function checkProof(app: App, user: User, proof: { password?: string; code?: string }): Promise<DisableResult> {
  if (proof.password && proof.password.length <= 1000 && user.passwordHash && (await verifyPassword(proof.password, user.passwordHash))) return { ok: true };
  if (proof.code) return checkSecondFactor(app, user.id, proof.code);
  return { ok: false, reason: "wrong" };
}

/** The user turns two-factor off, proving it is them with the password or a code. */
export async function disableTwoFactor(app: App, user: User, proof: { password?: string; code?: string }): Promise<DisableResult> {
  if (findUserOtp(app.db, user.id)?.enabledAt == null) return { ok: true };
  const proved = await checkProof(app, user, proof);
  if (!proved.ok) return proved;
  removeTwoFactor(app, user.id);
  return { ok: true };
}

export type RegenerateResult = { ok: true; codes: string[] } | { ok: false; reason: "off" | "wrong" } | { ok: false; reason: "throttled"; retryMs: number };

/**
 * New recovery codes replace the old ones, which stop working (Mastodon's
 * Settings::TwoFactorAuthentication::RecoveryCodesController#create, behind its password
 * challenge; here the password or a current code, as for disabling, so an account signed in
 * through an external provider without a password can do it too). The user is told by e-mail
 * (Mastodon's UserMailer#two_factor_recovery_codes_changed).
 */
export async function regenerateRecoveryCodes(app: App, user: User, username: string, proof: { password?: string; code?: string }): Promise<RegenerateResult> {
  if (findUserOtp(app.db, user.id)?.enabledAt == null) return { ok: false, reason: "off" };
  const proved = await checkProof(app, user, proof);
  if (!proved.ok) return proved;
  const { codes, hashes } = newRecoveryCodes();
  tx(app.db, () => {
    replaceRecoveryCodes(app.db, user.id, hashes);
    enqueueMail(app, recoveryCodesChangedMail(app, user.email, username));
  });
  app.log.info("two-factor recovery codes regenerated", { userId: user.id });
  return { ok: true, codes };
}

/** Abandons a set-up that was never confirmed. */
export function cancelTwoFactorSetup(app: App, userId: string): void {
  if (findUserOtp(app.db, userId)?.enabledAt === null) deleteUserOtp(app.db, userId);
}

