import type { App } from "../app.ts";
import { notFound } from "../errors.ts";
import { type Id, parseId } from "../lib/ids.ts";
import { findAccountByHandle, findAccountById, findAccountsByIds, type Account } from "../storage/accounts.ts";
import { findUsersByAccountIds } from "../storage/account-profile.ts";
import type { User } from "../storage/users.ts";
import { resolveAcct } from "./remote-lookup.ts";

// Finding accounts the way the public API may show them. Local accounts whose user has not
// confirmed the e-mail or is still pending approval do not exist for the API yet.

export function isHiddenLocal(account: Account, user: User | undefined): boolean {
  if (account.domain !== null) return false;
  return !user || user.confirmedAt === null || !user.approved;
}

/** GET /api/v1/accounts/:id: 404 "Record not found" for malformed, unknown or hidden ids. */
export function requireVisibleAccount(app: App, rawId: unknown): Account {
  const id = parseId(rawId);
  const account = id ? findAccountById(app.db, id) : undefined;
  if (!account) throw notFound();
  if (account.domain === null) {
    const user = findUsersByAccountIds(app.db, [account.id]).get(account.id);
    if (isHiddenLocal(account, user)) throw notFound();
  }
  return account;
}

/** Multi-get: existing, visible accounts among `ids` (unknown ones skipped), in request order. */
export function findVisibleAccounts(app: App, ids: Id[]): Account[] {
  const found = findAccountsByIds(app.db, ids);
  const users = findUsersByAccountIds(app.db, [...found.values()].filter((a) => a.domain === null).map((a) => a.id));
  const out: Account[] = [];
  for (const id of ids) {
    const a = found.get(id);
    if (a && !isHiddenLocal(a, users.get(a.id))) out.push(a);
  }
  return out;
}

/** True when `domain` names this server (handles may spell it out: alice@our.domain). */
export function isLocalDomain(app: App, domain: string): boolean {
  return domain.toLowerCase() === app.config.domain.toLowerCase();
}

export interface Acct {
  username: string;
  /** null: local (no domain, or ours). Lower-cased. */
  domain: string | null;
}

/** `alice`, `@alice`, `alice@domain`, `@alice@domain` (an `acct:` prefix too); undefined when malformed. */
export function parseAcct(app: App, raw: string): Acct | undefined {
  const handle = raw.trim().replace(/^acct:/i, "").replace(/^@/, "");
  const at = handle.indexOf("@");
  const username = at === -1 ? handle : handle.slice(0, at);
  const domain = at === -1 ? null : handle.slice(at + 1).toLowerCase();
  if (username === "" || domain === "" || /[\s@/]/.test(username) || (domain !== null && /[\s@/]/.test(domain))) return undefined;
  return { username, domain: domain !== null && isLocalDomain(app, domain) ? null : domain };
}

/**
 * GET /api/v1/accounts/lookup: `alice`, `@alice`, `alice@domain`, `@alice@domain`. Signed-in
 * callers may name a remote account we do not know yet (WebFinger); anonymous ones only find
 * known accounts, so the public endpoint cannot be used to make us fetch from anywhere.
 */
export async function lookupAccount(app: App, acct: string, opts: { resolve?: boolean } = {}): Promise<Account> {
  const handle = parseAcct(app, acct);
  if (!handle) throw notFound();
  const account = opts.resolve ? await resolveAcct(app, handle) : findAccountByHandle(app.db, handle.username, handle.domain);
  if (!account) throw notFound();
  return requireVisibleAccount(app, account.id);
}

/** Re-reads the caller's account and user after a change (the route answers with them). */
export function reloadViewer(app: App, accountId: Id, userId: Id): { account: Account; user: User } {
  const account = findAccountById(app.db, accountId);
  const user = findUsersByAccountIds(app.db, [accountId]).get(accountId);
  if (!account || !user || user.id !== userId) throw notFound();
  return { account, user };
}
