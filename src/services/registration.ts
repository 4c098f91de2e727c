import type { App } from "../app.ts";
import { ApiError } from "../errors.ts";
import type { Id } from "../lib/ids.ts";
import { Validation } from "../lib/validation.ts";
import { exceedsCodePoints } from "../lib/code-points.ts";
import { findApplicationById } from "../storage/applications.ts";
import { issueToken } from "./tokens.ts";
import { createUser, validateNewUser } from "./users.ts";
import { registrationsMode } from "../storage/instance-settings.ts";
import { findUsableInvite, inviterBypassesApproval, inviterOf } from "./invites.ts";
import { sendConfirmation } from "./email-confirmation.ts";
import { followAccount } from "./follows.ts";
import { emailBlockVerdict } from "./email-address-blocks.ts";
import { ipSignUpVerdict } from "./ip-blocks.ts";
import { pamReservesUsername } from "./external-auth/pam.ts";

// POST /api/v1/accounts: sign-up through an app (client credentials token).

export interface RegistrationInput {
  username?: string;
  email?: string;
  password?: string;
  agreement?: boolean;
  locale?: string;
  reason?: string;
  /** An invite's code (GET /invite/:code gives it to the app). */
  inviteCode?: string;
}

/** Doorkeeper's token response (entities-other.md § Token). */
export interface ApiToken {
  access_token: string;
  token_type: "Bearer";
  scope: string;
  created_at: number;
}

const LIMIT = 5;
const WINDOW_MS = 30 * 60_000;
const REASON_MAX = 420;
const LOCALE_RE = /^[a-z]{2,3}(?:[-_][A-Za-z0-9]{2,8})?$/;

interface Window {
  start: number;
  counts: Map<string, number>;
}

/**
 * Mastodon's rack-attack rule: 5 sign-up requests per IP per 30 minutes, every attempt
 * counted, in fixed windows aligned on the epoch. In memory (lost on restart, which is fine).
 */
export function checkRegistrationRate(app: App, ip: string | null): void {
  const now = app.now();
  const start = now - (now % WINDOW_MS);
  let w = app.cache.get("ratelimit:sign-up") as Window | undefined;
  if (!w || w.start !== start) app.cache.set("ratelimit:sign-up", (w = { start, counts: new Map() }));
  const key = ip ?? "unknown";
  const n = (w.counts.get(key) ?? 0) + 1;
  w.counts.set(key, n);
  if (n <= LIMIT) return;
  const reset = new Date(start + WINDOW_MS).toISOString().replace(/\.(\d{3})Z$/, ".$1000Z");
  throw new ApiError(429, "Too many requests", undefined, undefined, {
    "x-ratelimit-limit": String(LIMIT),
    "x-ratelimit-remaining": "0",
    "x-ratelimit-reset": reset,
  });
}

/** Forgets the sign-up counters (tests; an operator unblocking a shared IP). */
export function resetRegistrationRate(app: App): void {
  app.cache.delete("ratelimit:sign-up");
}

/**
 * Creates the user and returns a token for the registering app, with the app's registered
 * scopes. The e-mail address starts unconfirmed: user endpoints answer 403 until it is
 * confirmed. Open mode: the user is approved at once; approval mode: created unapproved (403
 * until a moderator approves, after the confirmation); closed: 403.
 */
export async function registerAccount(
  app: App,
  opts: { applicationId: Id; tokenScopes: string[]; ip: string | null },
  input: RegistrationInput,
): Promise<ApiToken> {
  const mode = registrationsMode(app);
  // A code that cannot be used (unknown, used up, expired, inviter gone) is refused outright
  // rather than quietly turned into an ordinary sign-up. A usable one opens closed
  // registrations (Mastodon's allowed_registration?: registrations open or a valid invite).
  const invite = input.inviteCode ? findUsableInvite(app, input.inviteCode) : undefined;
  if (input.inviteCode && !invite) throw new ApiError(403, "Forbidden");
  if (mode === "closed" && !invite) throw new ApiError(403, "Forbidden");
  const inviter = invite && inviterOf(app, invite);
  // Approval is skipped for a usable invite whose creator holds invite_bypass_approval
  // (User#set_approved: valid_bypassing_invitation?, Mastodon 4.5).
  const invitedPastApproval = inviter !== undefined && inviterBypassesApproval(app, inviter.user);
  // The admin's IP blocks: sign_up_block (and no_access) refuse even with an invite, as
  // Mastodon's allowed_registration? does; sign_up_requires_approval holds the account.
  const ipVerdict = ipSignUpVerdict(app, opts.ip);
  if (ipVerdict === "blocked") throw new ApiError(403, "This action is not allowed");
  const v = new Validation();
  const user = { username: input.username ?? "", email: input.email ?? "", password: input.password, checkReserved: true };
  validateNewUser(app, user, v);
  // Usernames maintained through PAM (the system's users) are not for sign-up (the seed).
  if (!v.has("username") && (await pamReservesUsername(app, user.username))) v.add("username", "ERR_RESERVED", "is reserved");
  // The admin's e-mail blocks: refused, or held for approval (allow_with_approval).
  const verdict = v.has("email") ? null : await emailBlockVerdict(app, user.email, opts.ip);
  if (verdict === "blocked") v.add("email", "ERR_BLOCKED", "uses a disallowed e-mail provider");
  // A blocked address. Mastodon's UserEmailValidator reports it as taken, which tells the
  // person nothing about the block.
  else if (verdict === "canonical") v.add("email", "ERR_TAKEN", "has already been taken");
  if (!input.password) v.add("password", "ERR_BLANK", "can't be blank");
  if (input.agreement !== true) v.add("agreement", "ERR_ACCEPTED", "must be accepted");
  const reason = input.reason?.trim() || null;
  if (reason && exceedsCodePoints(reason, REASON_MAX))
    v.add("reason", "ERR_TOO_LONG", `is too long (maximum is ${REASON_MAX} characters)`);
  v.throwIfAny();
  // An unknown locale is dropped silently, as Mastodon does.
  const locale = input.locale && LOCALE_RE.test(input.locale) ? input.locale : null;
  const created = await createUser(app, {
    ...user,
    // Unconfirmed until the address is confirmed (the mailed link, or `roost user confirm`):
    // anyone may type someone else's address, so the token must not work yet.
    confirmed: false,
    // Approval required by the e-mail or the IP wins over an invite (User#set_approved).
    approved: (mode === "open" || invitedPastApproval) && verdict !== "approval" && ipVerdict !== "approval",
    locale,
    reason,
    signUpIp: opts.ip,
    createdByAppId: opts.applicationId,
    invite: invite && inviter ? { id: invite.id, inviterAccountId: inviter.account.id } : null,
    // The confirmation mail commits with the user.
    inTx: ({ userId }) => sendConfirmation(app, { id: userId, email: user.email }, user.username),
  });
  // Invite#autofollow: the newcomer follows the inviter (Mastodon does it once the account is
  // active; roost at once, so the inviter sees who came).
  if (invite?.autofollow && inviter) {
    try {
      followAccount(app, created.account, inviter.account, {});
    } catch (e) {
      app.log.warn("invite autofollow failed", { error: (e as Error).message });
    }
  }
  const scopes = findApplicationById(app.db, opts.applicationId)?.scopes ?? opts.tokenScopes;
  const token = issueToken(app, { userId: created.user.id, applicationId: opts.applicationId, scopes });
  return { access_token: token.token, token_type: "Bearer", scope: scopes.join(" "), created_at: Math.floor(token.createdAt / 1000) };
}
