import type { App } from "../app.ts";
import { tx } from "../db/db.ts";
import { ApiError } from "../errors.ts";
import { verifyPassword } from "../lib/crypto.ts";
import { onAccountMoved, onProfileUpdated } from "../federation/outbox/hooks.ts";
import { lastMoveAt, localFollowsOf, recordMove } from "../storage/activity-uris.ts";
import { type Account, findAccountById, findAccountByUri, updateAccount } from "../storage/accounts.ts";
import type { User } from "../storage/users.ts";
import { parseAcct } from "./account-lookup.ts";
import { carryOverFollowers } from "./account-moves.ts";
import { refetchAccount, resolveAcct } from "./remote-lookup.ts";

// A local account's aliases and its move to another account (Mastodon's Settings::AliasesController,
// Settings::MigrationsController, AccountMigration and MoveService). Aliases are the actor's
// alsoKnownAs: another account moving here must be listed first. A move needs the password,
// a target that lists us in its alsoKnownAs, and 30 days since the last move; the account is
// then marked moved, Move goes to its followers (their servers carry them over) and local
// followers follow the target at once.

/** AccountMigration::COOLDOWN_PERIOD. */
export const MIGRATION_COOLDOWN_MS = 30 * 86_400_000;
/** Bounds the actor document; Mastodon has no limit, remote parsing keeps at most this many too. */
export const MAX_ALIASES = 20;

const invalid = (message: string) => new ApiError(422, message);

/** `@user@domain` → the account, resolved over WebFinger when remote. */
async function resolveTarget(app: App, acct: string): Promise<Account> {
  const handle = parseAcct(app, acct.slice(0, 500));
  const found = handle ? await resolveAcct(app, handle) : undefined;
  if (!found || found.suspendedAt !== null) throw invalid("Could not find the account to move to");
  return found;
}

export interface AliasView {
  uri: string;
  /** `user@domain` when we know the account, else the URI. */
  acct: string;
}

export function listAliases(app: App, account: Account): AliasView[] {
  return account.alsoKnownAs.map((uri) => {
    const a = findAccountByUri(app.db, uri);
    return { uri, acct: a ? `${a.username}@${a.domain ?? app.config.domain}` : uri };
  });
}

/** Settings::AliasesController#create: the old account's URI joins our alsoKnownAs. */
export async function addAlias(app: App, account: Account, acct: string): Promise<void> {
  const target = await resolveTarget(app, acct);
  if (target.id === account.id) throw invalid("You cannot add your own account as an alias");
  const current = findAccountById(app.db, account.id)!;
  if (current.alsoKnownAs.includes(target.uri)) return;
  if (current.alsoKnownAs.length >= MAX_ALIASES) throw invalid(`At most ${MAX_ALIASES} aliases`);
  tx(app.db, () => {
    updateAccount(app.db, account.id, { alsoKnownAs: [...current.alsoKnownAs, target.uri], updatedAt: app.now() });
    onProfileUpdated(app, current);
  });
}

export function removeAlias(app: App, account: Account, uri: string): void {
  const current = findAccountById(app.db, account.id)!;
  if (!current.alsoKnownAs.includes(uri)) return;
  tx(app.db, () => {
    updateAccount(app.db, account.id, { alsoKnownAs: current.alsoKnownAs.filter((u) => u !== uri), updatedAt: app.now() });
    onProfileUpdated(app, current);
  });
}

/** When the next move is allowed (ms), or undefined when it is now. */
export function migrationCooldownUntil(app: App, account: Account): number | undefined {
  const last = lastMoveAt(app.db, account.id);
  return last !== undefined && app.now() - last < MIGRATION_COOLDOWN_MS ? last + MIGRATION_COOLDOWN_MS : undefined;
}

/** Settings::MigrationsController#create. Returns the target; local followers already follow it. */
export async function moveAccount(app: App, user: User, account: Account, input: { acct: string; password: string }): Promise<Account> {
  if (!(await verifyPassword(input.password.slice(0, 1000), user.passwordHash))) throw invalid("Current password is invalid");
  if (migrationCooldownUntil(app, account) !== undefined) throw invalid("You can only move your account once every 30 days");
  const found = await resolveTarget(app, input.acct);
  if (found.id === account.id) throw invalid("You cannot move to your own account");
  if (account.movedToAccountId === found.id) throw invalid("This account already moved there");
  // Refetched: the alias must be there now, not when we last saw the account.
  const target = (await refetchAccount(app, found)) ?? found;
  if (!target.alsoKnownAs.includes(account.uri)) throw invalid("The new account must first list this one as an alias");
  const now = app.now();
  tx(app.db, () => {
    updateAccount(app.db, account.id, { movedToAccountId: target.id, updatedAt: now });
    recordMove(app.db, account.id, target.id, now);
    const moved = findAccountById(app.db, account.id)!;
    onAccountMoved(app, moved, target);
    onProfileUpdated(app, moved);
  });
  carryOverFollowers(app, account, target, localFollowsOf(app.db, account.id));
  return target;
}

/** `@user@domain` of the account this one moved to, if it did. */
export function movedToAcct(app: App, account: Account): string | null {
  const current = findAccountById(app.db, account.id);
  const target = current?.movedToAccountId ? findAccountById(app.db, current.movedToAccountId) : undefined;
  return target ? `@${target.username}@${target.domain ?? app.config.domain}` : null;
}
