// PLACEHOLDER: signatures fixed; implemented by the accounts work package.
import type { App } from "../app.ts";
import type { Account } from "../storage/accounts.ts";
import type { User } from "../storage/users.ts";

export type ApiAccount = Record<string, unknown> & { id: string; username: string; acct: string };

/** Mastodon's Account entity. */
export function toApiAccount(_app: App, account: Account): ApiAccount {
  return { id: account.id, username: account.username, acct: account.username };
}

/** Several accounts with batched lookups (emojis, moved targets), in input order. */
export function toApiAccounts(app: App, accounts: Account[]): ApiAccount[] {
  return accounts.map((a) => toApiAccount(app, a));
}

/** CredentialAccount: Account plus `source` (and `role`) for the account's own user. */
export function toApiCredentialAccount(app: App, account: Account, _user: User): ApiAccount {
  return toApiAccount(app, account);
}
