import type { App } from "../app.ts";
import { tx } from "../db/db.ts";
import { hashPassword } from "../lib/crypto.ts";
import { EMAIL_RE, USERNAME_RE, Validation } from "../lib/validation.ts";
import type { Id } from "../lib/ids.ts";
import { type Account, findAccountByHandle, findAccountById, insertAccount } from "../storage/accounts.ts";
import { type User, findUserByAccountId, findUserByEmail, findUserById, insertUser, staffAccountIds, updateUser } from "../storage/users.ts";
import { notify } from "./notifications.ts";
import { localActorUrls } from "../lib/urls.ts";
import { recordUserIp } from "../storage/user-ips.ts";
import { consumeInviteUse } from "../storage/invites.ts";
import { ApiError } from "../errors.ts";
import { mailPendingAccount } from "./staff-mail.ts";

/**
 * The built-in roles by the names `roost user create --role` takes (migration 0030 seeds them
 * with these ids, as a fresh Mastodon does); `user` is the everyone role.
 */
export const BUILTIN_ROLE_IDS = { user: null, moderator: "1", admin: "2", owner: "3" } as const;
export type BuiltinRoleName = keyof typeof BUILTIN_ROLE_IDS;

export interface CreateUserInput {
  username: string;
  email: string;
  password?: string | null;
  role?: BuiltinRoleName;
  /** CLI and fixtures create confirmed, approved users; registration decides per mode. */
  confirmed?: boolean;
  approved?: boolean;
  locale?: string | null;
  reason?: string | null;
  signUpIp?: string | null;
  createdByAppId?: Id | null;
  /** Registration refuses reserved names (admin, root, ...); the CLI may use them. */
  checkReserved?: boolean;
  displayName?: string;
  /** The invite used to sign up (registration checked it): its use is counted in the same transaction. */
  invite?: { id: Id; inviterAccountId: Id } | null;
  /**
   * Runs inside the creating transaction, after the rows are written (registration stores the
   * confirmation token and queues its e-mail there, so both commit with the user).
   */
  inTx?: (created: { userId: Id; accountId: Id }) => void;
}

// Names Mastodon keeps from self-registration.
const RESERVED = new Set(["admin", "support", "help", "root", "webmaster", "administrator", "mod", "moderator", "instance.actor"]);
const MAX_PASSWORD = 72;

export function validateNewUser(app: App, input: CreateUserInput, v = new Validation()): Validation {
  const username = input.username ?? "";
  if (username === "") v.add("username", "ERR_BLANK", "can't be blank");
  else if (username.length > 30) v.add("username", "ERR_TOO_LONG", "is too long (maximum is 30 characters)");
  else if (!USERNAME_RE.test(username)) v.add("username", "ERR_INVALID", "must contain only letters, numbers, underscores and dots");
  else if (input.checkReserved && RESERVED.has(username.toLowerCase())) v.add("username", "ERR_RESERVED", "is reserved");
  else if (findAccountByHandle(app.db, username, null)) v.add("username", "ERR_TAKEN", "has already been taken");
  const email = input.email ?? "";
  if (email === "") v.add("email", "ERR_BLANK", "can't be blank");
  else if (email.length > 255 || !EMAIL_RE.test(email)) v.add("email", "ERR_INVALID", "is invalid");
  else if (findUserByEmail(app.db, email)) v.add("email", "ERR_TAKEN", "has already been taken");
  if (input.password !== undefined && input.password !== null) {
    if (input.password.length < 8) v.add("password", "ERR_TOO_SHORT", "is too short (minimum is 8 characters)");
    else if (input.password.length > MAX_PASSWORD) v.add("password", "ERR_TOO_LONG", `is too long (maximum is ${MAX_PASSWORD} characters)`);
  }
  return v;
}

/**
 * Creates a local account and its user. The only way users are made: the CLI, registration
 * and test fixtures all come here. Throws ApiError(422) with Mastodon's details on bad input.
 */
export async function createUser(app: App, input: CreateUserInput): Promise<{ user: User; account: Account }> {
  validateNewUser(app, input).throwIfAny();
  // Slow work (key generation in the pool, password hashing) happens before the transaction.
  const [keys, passwordHash] = await Promise.all([
    app.pool.run<{ publicKeyPem: string; privateKeyPem: string }>("generateKeyPair", {}),
    input.password ? hashPassword(input.password) : Promise.resolve(null),
  ]);
  const now = app.now();
  const accountId = app.ids.next();
  const userId = app.ids.next();
  const urls = localActorUrls(app.baseUrl, input.username);
  tx(app.db, () => {
    // Re-check inside the transaction: a concurrent request may have taken the name.
    validateNewUser(app, { ...input, password: undefined }).throwIfAny();
    insertAccount(app.db, {
      id: accountId,
      username: input.username,
      domain: null,
      displayName: input.displayName ?? "",
      ...urls,
      publicKeyPem: keys.publicKeyPem,
      privateKeyPem: keys.privateKeyPem,
      discoverable: null,
      createdAt: now,
      updatedAt: now,
    });
    insertUser(app.db, {
      id: userId,
      accountId,
      email: input.email,
      passwordHash,
      roleId: BUILTIN_ROLE_IDS[input.role ?? "user"],
      confirmedAt: input.confirmed === false ? null : now,
      approved: input.approved !== false,
      locale: input.locale ?? null,
      reason: input.reason ?? null,
      signUpIp: input.signUpIp ?? null,
      createdByAppId: input.createdByAppId ?? null,
      inviteId: input.invite?.id ?? null,
      invitedByAccountId: input.invite?.inviterAccountId ?? null,
      createdAt: now,
    });
    recordUserIp(app.db, userId, input.signUpIp, now);
    // Counted only while it is still usable: a concurrent sign-up may have taken the last use.
    if (input.invite && !consumeInviteUse(app.db, input.invite.id, now)) throw new ApiError(403, "Forbidden");
    input.inTx?.({ userId, accountId });
  });
  return { user: findUserById(app.db, userId)!, account: findAccountById(app.db, accountId)! };
}

/**
 * Confirms a local user's e-mail address by hand (`roost user confirm`), as the confirmation
 * link will once roost sends mail. Undefined for an unknown username; `changed` is false when
 * the address was already confirmed. Approval, where required, is a separate step.
 */
export function confirmUser(app: App, username: string): { user: User; changed: boolean } | undefined {
  const account = findAccountByHandle(app.db, username.replace(/^@/, ""), null);
  const user = account && findUserByAccountId(app.db, account.id);
  if (!user) return undefined;
  if (user.confirmedAt !== null) return { user, changed: false };
  const now = app.now();
  tx(app.db, () => {
    updateUser(app.db, user.id, { confirmedAt: now, updatedAt: now });
    // Approved already (open registrations): the account is active from now on. Otherwise
    // it now waits for a moderator, who hears of it by mail (User#prepare_new_user!).
    if (user.approved) announceSignUp(app, user.accountId);
    else mailPendingAccount(app, user);
  });
  return { user: findUserById(app.db, user.id)!, changed: true };
}

/**
 * A self-registered account has become active (its address confirmed and, where required,
 * approved): the staff hear of it, `admin.sign_up` (Mastodon's BootstrapTimelineService
 * notify_staff!, run by User#prepare_new_user! on confirmation or approval). Accounts made
 * confirmed and approved at once (`roost user create`) are not announced, as tootctl's are not.
 * Synchronous: may run inside a tx(). Approving a confirmed account must call it too.
 */
export function announceSignUp(app: App, accountId: Id): void {
  for (const staffId of staffAccountIds(app.db)) notify(app, { type: "admin.sign_up", recipientId: staffId, fromAccountId: accountId });
}
