import { type DB, readTx } from "../db/db.ts";
import type { Id } from "../lib/ids.ts";
import { scanShortcodes } from "../lib/shortcodes.ts";
import { type Account, findAccountsByIds } from "./accounts.ts";
import { findAccountsWithBadges, findUserBadges, type UserBadge } from "./account-profile.ts";
import { type CustomEmoji, findEmojisByDomain } from "./custom-emojis.ts";
import type { RowCache } from "./row-cache.ts";
import { listRoles, type UserRole } from "./user-roles.ts";

// The reads behind a page of Account entities (serializers/account.ts), batched: a page
// costs a fixed number of queries whatever its length.

/** Everything a page of accounts needs besides the rows, loaded with a fixed number of queries. */
export interface AccountPage {
  users: Map<Id, UserBadge>;
  /** Every role by id, loaded when a user on the page has one (their badges name it). */
  roles: Map<Id, UserRole>;
  moved: Map<Id, Account>;
  /** Key: `${domain ?? ""} ${shortcode}`. */
  emojis: Map<string, CustomEmoji>;
}

/** Shortcodes of the display name, note and profile fields. */
export function accountShortcodes(a: Account): string[] {
  const out = scanShortcodes(a.note, scanShortcodes(a.displayName, []));
  for (const f of a.fields) scanShortcodes(f.value, scanShortcodes(f.name, out));
  return out;
}

/**
 * `known`: the users of `accounts`, already looked up by the caller (absent: no user); only
 * those of moved targets are then queried. No transaction of its own.
 */
export function loadAccountPage(db: DB, accounts: Account[], known?: Map<Id, UserBadge>): AccountPage {
  const movedIds = accounts.filter((a) => a.movedToAccountId && a.suspendedAt === null).map((a) => a.movedToAccountId!);
  const moved = movedIds.length ? findAccountsByIds(db, movedIds) : new Map<Id, Account>();
  const all = movedIds.length ? [...accounts, ...moved.values()] : accounts;
  const lookup = (known ? [...moved.values()] : all).filter((a) => a.domain === null && !known?.has(a.id)).map((a) => a.id);
  const users = lookup.length ? findUserBadges(db, lookup) : new Map<Id, UserBadge>();
  if (known) for (const [id, u] of known) users.set(id, u);
  // One emoji query per distinct domain on the page (usually one or two).
  const byDomain = new Map<string | null, Set<string>>();
  for (const a of all) {
    if (a.suspendedAt !== null) continue;
    const codes = accountShortcodes(a);
    if (codes.length === 0) continue;
    let set = byDomain.get(a.domain);
    if (!set) byDomain.set(a.domain, (set = new Set()));
    for (const c of codes) set.add(c);
  }
  let roles = new Map<Id, UserRole>();
  for (const u of users.values()) {
    if (u.roleId === null) continue;
    roles = new Map(listRoles(db).map((r) => [r.id, r]));
    break;
  }
  return { users, roles, moved, emojis: findEmojisByDomain(db, byDomain) };
}

/** `loadAccountPage` in one read transaction (db.ts readTx). */
export function readAccountPage(db: DB, accounts: Account[]): AccountPage {
  return readTx(db, () => loadAccountPage(db, accounts));
}

/**
 * Accounts by id for pages that embed many of them, past a cache of their renderings: the
 * cache's entries, and the rows of the others (missing ids are absent) with their page, in
 * one read transaction. The caller renders those and may cache them.
 */
export function readUncachedAccounts<V>(db: DB, ids: Iterable<Id>, cache: RowCache<V> | undefined): { cached: Map<Id, V>; accounts: Account[]; page: AccountPage } {
  return readTx(db, () => {
    cache?.sync();
    const cached = new Map<Id, V>();
    const missing: Id[] = [];
    for (const id of ids) {
      const hit = cache?.get(id);
      if (hit) cached.set(id, hit);
      else missing.push(id);
    }
    // The lookup runs even when everything was cached: a page costs the same queries.
    const found = findAccountsWithBadges(db, missing);
    const accounts = found.map((f) => f.account);
    const badges = new Map<Id, UserBadge>();
    for (const f of found) if (f.badge) badges.set(f.account.id, f.badge);
    return { cached, accounts, page: loadAccountPage(db, accounts, badges) };
  });
}
