// PAM sign-in (Mastodon's PAM_ENABLED, devise_pam_authenticatable2): the sign-in form's name and
// password are checked by the system's PAM stack for `pamService`. The binding
// (node-linux-pam, a native addon) is an optional dependency: where it did not build, or
// libpam is missing, PAM is reported unavailable once in the log and by `roost status`, and
// everything else works as if PAM were off.
//
// How local and PAM users coexist (Mastodon's rules; the sign-in route tries the local password
// first, then signInWithPam):
// - a user with a password of their own (a "traditional" account) signs in with it; PAM is never
//   asked about them (Mastodon's pam_conflict blocks PAM tries on such accounts), unless the
//   operator allows taking accounts over by username (externalAuthReattach "username");
// - a user bound to a PAM identity signs in with their PAM password, by username or e-mail;
// - an unknown name (or <name>@<pamEmailDomain>) that PAM accepts gets an account on first
//   sign-in, named as in PAM, with the e-mail address <name>@<pamEmailDomain>.
import { execFile } from "node:child_process";
import { readFile } from "node:fs/promises";
import { createRequire } from "node:module";
import type { App } from "../../app.ts";
import { findAccountByHandle, findAccountById } from "../../storage/accounts.ts";
import { findIdentityOfUser } from "../../storage/identities.ts";
import { type User, findUserByAccountId, findUserByLogin } from "../../storage/users.ts";
import { USERNAME_RE } from "../../lib/validation.ts";
import { SIGN_IN_ERRORS, type SignInResult, continueSignIn } from "../web-sessions.ts";
import { userForExternal } from "./identities.ts";

/** node-linux-pam's callback API: pam_authenticate, then pam_acct_mgmt (expired or barred accounts fail). */
type PamAuthenticate = (opts: { username: string; password: string; serviceName: string; remoteHost?: string }, done: (err: Error | null, code: number) => void) => void;

export type PamState = { available: true; reason: null } | { available: false; reason: string };

// Longer than any Unix name or password; also keeps huge form values away from PAM modules.
const MAX_FIELD_BYTES = 1000;
const CACHE_KEY = "pam:binding";
const GETENT_TIMEOUT_MS = 5000;

interface Loaded {
  state: PamState;
  authenticate?: PamAuthenticate;
}

export function pamEnabled(app: App): boolean {
  return app.config.pamEnabled;
}

/** Imports the binding package: its authenticate(), or why it cannot be used. */
export async function loadPamBinding(name: string): Promise<{ authenticate: PamAuthenticate } | { reason: string }> {
  try {
    // A CommonJS package whose main is the .node addon itself: ESM import() refuses .node files.
    const mod = createRequire(import.meta.url)(name) as { pamAuthenticate?: PamAuthenticate };
    const authenticate = mod.pamAuthenticate;
    if (typeof authenticate !== "function") return { reason: `the PAM binding (${name}) has no pamAuthenticate()` };
    return { authenticate };
  } catch (e) {
    return { reason: `the PAM binding (${name}, an optional dependency) could not be loaded: ${(e as Error).message.split("\n")[0]}` };
  }
}

/** Loads the binding once per app (startServer calls this, so the log says at start why PAM is off). */
export function preparePam(app: App): Promise<Loaded> {
  let p = app.cache.get(CACHE_KEY) as Promise<Loaded> | undefined;
  if (p) return p;
  p = loadPamBinding(app.config.pamBinding).then((r): Loaded => {
    if ("authenticate" in r) return { state: { available: true, reason: null }, authenticate: r.authenticate };
    if (app.config.pamEnabled) app.log.warn(`PAM sign-in is unavailable: ${r.reason}`);
    return { state: { available: false, reason: r.reason } };
  });
  app.cache.set(CACHE_KEY, p);
  return p;
}

/** Whether PAM sign-in works here; null when PAM is off in the config. */
export async function pamState(app: App): Promise<PamState | null> {
  if (!pamEnabled(app)) return null;
  return (await preparePam(app)).state;
}

export async function pamSignInAvailable(app: App): Promise<boolean> {
  return (await pamState(app))?.available === true;
}

/** Mastodon's PAM_EMAIL_DOMAIN, which defaults to LOCAL_DOMAIN: the domain's host name here. */
export function pamEmailDomain(app: App): string {
  return (app.config.pamEmailDomain || new URL(`http://${app.config.domain}`).hostname).toLowerCase();
}

const fits = (s: string) => s.length > 0 && Buffer.byteLength(s) <= MAX_FIELD_BYTES && !s.includes("\0");

/** True when PAM accepts this name and password for `pamService`. */
export async function pamAuthenticate(app: App, name: string, password: string, ip: string | null): Promise<boolean> {
  if (!fits(name) || !fits(password)) return false;
  const loaded = pamEnabled(app) ? await preparePam(app) : undefined;
  const authenticate = loaded?.authenticate;
  if (!authenticate) return false;
  return new Promise((resolve) => {
    try {
      const opts = { username: name, password, serviceName: app.config.pamService, ...(ip ? { remoteHost: ip } : {}) };
      authenticate(opts, (err, code) => resolve(!err && code === 0));
    } catch {
      resolve(false);
    }
  });
}

/**
 * The sign-in form's second chance, after the local password check failed: the name and password
 * checked by PAM, the account found or made on first sign-in, then the same two-factor step and
 * session as a local sign-in. Null when PAM has no say (off, unavailable, or not a PAM login).
 */
export async function signInWithPam(
  app: App,
  input: { login: string; password: string; userAgent: string | null; ip: string | null },
): Promise<SignInResult | null> {
  if (!(await pamSignInAvailable(app))) return null;
  const login = input.login.trim();
  const target = pamNameForLogin(app, login, login ? findUserByLogin(app.db, login) : undefined);
  if (!target) return null;
  if (!(await pamAuthenticate(app, target.name, input.password, input.ip))) return { ok: false, message: SIGN_IN_ERRORS.invalid };
  const user = await userForExternal(app, {
    provider: "pam",
    uid: target.name,
    username: target.name,
    email: `${target.name.toLowerCase()}@${pamEmailDomain(app)}`,
    emailVerified: true,
    displayName: null,
  });
  if (typeof user === "string") return { ok: false, message: user };
  const account = findAccountById(app.db, user.accountId);
  if (!account) return { ok: false, message: SIGN_IN_ERRORS.invalid };
  return continueSignIn(app, user, account, input);
}

/**
 * The PAM name a sign-in with `login` is checked as, and the user it signs in as (undefined: a
 * new account), or null when this login is not for PAM.
 */
export function pamNameForLogin(app: App, login: string, user: User | undefined): { name: string; user: User | undefined } | null {
  if (user) return pamNameOfUser(app, user);
  let name = login;
  if (login.includes("@")) {
    const suffix = `@${pamEmailDomain(app)}`;
    if (!login.toLowerCase().endsWith(suffix)) return null;
    name = login.slice(0, -suffix.length);
  }
  // Only names that can be a username here (Mastodon creates the account with the PAM name).
  if (name.length > 30 || !USERNAME_RE.test(name)) return null;
  const account = findAccountByHandle(app.db, name, null);
  const owner = account && findUserByAccountId(app.db, account.id);
  if (owner) return pamNameOfUser(app, owner);
  return account ? null : { name, user: undefined };
}

function pamNameOfUser(app: App, user: User): { name: string; user: User } | null {
  const identity = findIdentityOfUser(app.db, user.id, "pam");
  if (identity) return { name: identity.uid, user };
  // Not PAM-managed: only an operator who allows takeovers by username lets PAM have it.
  if (app.config.externalAuthReattach !== "username") return null;
  const account = findAccountById(app.db, user.accountId);
  return account ? { name: account.username, user } : null;
}

/**
 * Usernames maintained through PAM are blocked from registration (the seed; Mastodon's
 * UnreservedUsernameValidator with PAM_CONTROLLED_SERVICE): with PAM on, a username is reserved
 * when the system's user database (NSS: /etc/passwd, LDAP, sssd...) knows it as typed or in
 * lower case, as `getent passwd NAME` finds it. This does not need the binding.
 */
export async function pamReservesUsername(app: App, username: string): Promise<boolean> {
  if (!pamEnabled(app) || !username) return false;
  const names = [...new Set([username, username.toLowerCase()])];
  for (const n of names) if (await systemUserExists(n)) return true;
  return false;
}

async function systemUserExists(name: string): Promise<boolean> {
  if (!/^[a-z0-9_.-]+$/i.test(name)) return false;
  return new Promise((resolve) => {
    execFile("getent", ["passwd", name], { timeout: GETENT_TIMEOUT_MS }, (err, stdout) => {
      // getent exits 2 for an unknown name; missing altogether (musl, no getent): /etc/passwd.
      if (!err) return resolve(stdout.startsWith(`${name}:`));
      if ((err as NodeJS.ErrnoException).code === "ENOENT") return resolve(inEtcPasswd(name));
      resolve(false);
    });
  });
}

async function inEtcPasswd(name: string): Promise<boolean> {
  try {
    return (await readFile("/etc/passwd", "utf8")).split("\n").some((l) => l.startsWith(`${name}:`));
  } catch {
    return false;
  }
}
