// https://docs.joinmastodon.org/entities/Account/ and CredentialAccount (entities-core.md).
import { domainToUnicode } from "node:url";
import type { App } from "../app.ts";
import { readTx } from "../db/db.ts";
import { deepFreeze, findRowCache, MAX_CACHED_CHARS, type RowCacheSpec } from "../storage/row-cache.ts";
import type { Id } from "../lib/ids.ts";
import { mediaUrl } from "../lib/urls.ts";
import { defaultAvatarUrl, defaultHeaderUrl } from "../media/default-images.ts";
import { stillName } from "../media/files.ts";
import { type Account, findAccountsByIds } from "../storage/accounts.ts";
import {
  type CredentialExtras,
  findAccountsWithBadges,
  findCredentialExtras,
  findUserBadges,
  type UserBadge,
  userBadge,
} from "../storage/account-profile.ts";
import { findEmojisByShortcodes } from "../storage/custom-emojis.ts";
import type { User } from "../storage/users.ts";
import { type ApiCustomEmoji, toApiCustomEmoji } from "./custom-emoji.ts";
import { toApiAccountRoles, toApiRole } from "./role.ts";
import { scanShortcodes } from "../lib/shortcodes.ts";

export type ApiAccount = Record<string, unknown> & { id: string; username: string; acct: string };

/** Everything a page of accounts needs, loaded with a fixed number of queries. */
interface Batch {
  users: Map<Id, UserBadge>;
  moved: Map<Id, Account>;
  /** Key: `${domain ?? ""} ${shortcode}`. */
  emojis: Map<string, ApiCustomEmoji>;
}

const DAY = 86_400_000;

/** Shortcodes of the display name, note and profile fields. */
function shortcodesOf(a: Account): string[] {
  const out = scanShortcodes(a.note, scanShortcodes(a.displayName, []));
  for (const f of a.fields) scanShortcodes(f.value, scanShortcodes(f.name, out));
  return out;
}

/**
 * `known`: the users of `accounts`, already looked up by the caller (absent: no user); only
 * those of moved targets are then queried.
 */
function loadBatch(app: App, accounts: Account[], known?: Map<Id, UserBadge>): Batch {
  const movedIds = accounts.filter((a) => a.movedToAccountId && a.suspendedAt === null).map((a) => a.movedToAccountId!);
  const moved = movedIds.length ? findAccountsByIds(app.db, movedIds) : new Map<Id, Account>();
  const all = movedIds.length ? [...accounts, ...moved.values()] : accounts;
  const lookup = (known ? [...moved.values()] : all).filter((a) => a.domain === null && !known?.has(a.id)).map((a) => a.id);
  const users = lookup.length ? findUserBadges(app.db, lookup) : new Map<Id, UserBadge>();
  if (known) for (const [id, u] of known) users.set(id, u);
  // One emoji query per distinct domain on the page (usually one or two).
  const byDomain = new Map<string | null, Set<string>>();
  for (const a of all) {
    if (a.suspendedAt !== null) continue;
    const codes = shortcodesOf(a);
    if (codes.length === 0) continue;
    let set = byDomain.get(a.domain);
    if (!set) byDomain.set(a.domain, (set = new Set()));
    for (const c of codes) set.add(c);
  }
  const emojis = new Map<string, ApiCustomEmoji>();
  for (const [domain, codes] of byDomain) {
    for (const e of findEmojisByShortcodes(app.db, [...codes], domain)) {
      emojis.set(`${domain ?? ""} ${e.shortcode}`, toApiCustomEmoji(app, e));
    }
  }
  return { users, moved, emojis };
}

const midnight = (ms: number) => new Date(ms - (((ms % DAY) + DAY) % DAY)).toISOString();
const day = (ms: number) => new Date(ms).toISOString().slice(0, 10);

function imageUrls(app: App, file: string | null, type: string | null, remote: string | null, fallback: string) {
  if (file) {
    const still = stillName(file, type);
    return { url: mediaUrl(app.baseUrl, file), still: mediaUrl(app.baseUrl, still ?? file) };
  }
  const url = remote || fallback;
  return { url, still: url };
}

function render(app: App, a: Account, batch: Batch, nested: boolean): ApiAccount {
  const suspended = a.suspendedAt !== null;
  const local = a.domain === null;
  const user = local ? batch.users.get(a.id) : undefined;
  const avatar = suspended
    ? { url: defaultAvatarUrl(app), still: defaultAvatarUrl(app) }
    : imageUrls(app, a.avatarFile, a.avatarContentType, a.avatarRemoteUrl, defaultAvatarUrl(app));
  const header = suspended
    ? { url: defaultHeaderUrl(app), still: defaultHeaderUrl(app) }
    : imageUrls(app, a.headerFile, a.headerContentType, a.headerRemoteUrl, defaultHeaderUrl(app));
  const out: ApiAccount = {
    id: a.id,
    username: a.username,
    acct: local ? a.username : `${a.username}@${domainToUnicode(a.domain!) || a.domain}`,
    display_name: suspended ? "" : a.displayName,
    locked: suspended ? false : a.locked,
    bot: suspended ? false : a.actorType === "Service" || a.actorType === "Application",
    discoverable: suspended ? false : a.discoverable,
    indexable: suspended ? false : a.indexable,
    group: a.actorType === "Group",
    created_at: midnight(a.createdAt),
    note: suspended ? "" : a.note,
    url: a.url ?? a.uri,
    uri: a.uri,
    avatar: avatar.url,
    avatar_static: avatar.still,
    header: header.url,
    header_static: header.still,
    followers_count: a.followersCount,
    following_count: a.followingCount,
    statuses_count: a.statusesCount,
    last_status_at: a.lastStatusAt === null ? null : day(a.lastStatusAt),
    hide_collections: a.hideCollections,
  };
  if (local) out.noindex = user?.noindex === true;
  if (a.movedToAccountId && !nested) {
    const target = suspended ? undefined : batch.moved.get(a.movedToAccountId);
    // The nested account never carries its own `moved`.
    out.moved = target ? render(app, target, batch, true) : null;
  }
  const emojis: ApiCustomEmoji[] = [];
  if (!suspended) {
    const seen = new Set<string>();
    for (const code of shortcodesOf(a)) {
      const e = batch.emojis.get(`${a.domain ?? ""} ${code}`);
      if (e && !seen.has(code)) {
        seen.add(code);
        emojis.push(e);
      }
    }
  }
  out.emojis = emojis;
  out.fields = suspended ? [] : a.fields.map((f) => ({ name: f.name, value: f.value, verified_at: f.verified_at ?? null }));
  if (local) out.roles = suspended || !user ? [] : toApiAccountRoles(user.role);
  if (suspended) out.suspended = true;
  if (a.silencedAt !== null) out.limited = true;
  if (a.memorial) out.memorial = true;
  return out;
}

/** Mastodon's Account entity. */
export function toApiAccount(app: App, account: Account): ApiAccount {
  return toApiAccounts(app, [account])[0];
}

/** Several accounts with batched lookups (emojis, moved targets), in input order. */
export function toApiAccounts(app: App, accounts: Account[]): ApiAccount[] {
  if (accounts.length === 0) return [];
  const batch = readTx(app.db, () => loadBatch(app, accounts));
  return accounts.map((a) => render(app, a, batch, false));
}

/** An account as pages of statuses and notifications embed it, with its domain (for emojis). */
export interface EmbeddedAccount {
  json: ApiAccount;
  domain: string | null;
}

export const EMBEDDED_ACCOUNTS_CACHE: RowCacheSpec = {
  name: "embedded-accounts",
  max: 5_000,
  watches: [
    ["accounts", "id"],
    ["users", "account_id"],
    ["custom_emojis", null],
  ],
};

function profileChars(a: Account): number {
  let n = a.note.length + a.displayName.length;
  for (const f of a.fields) n += f.name.length + f.value.length;
  return n;
}

/**
 * Accounts by id, rendered from the database (missing ids are absent), for pages that embed
 * many of them. Renderings are cached until the account, its user or any custom emoji
 * changes (storage/row-cache.ts); they are shared, hence frozen. Unlike `toApiAccounts`, this
 * renders only rows it reads itself, so a caller's stale Account object never gets cached.
 */
export function embeddedAccounts(app: App, ids: Iterable<Id>): Map<Id, EmbeddedAccount> {
  const cache = findRowCache<EmbeddedAccount>(app, EMBEDDED_ACCOUNTS_CACHE);
  return readTx(app.db, () => {
    cache?.sync();
    const out = new Map<Id, EmbeddedAccount>();
    const missing: Id[] = [];
    for (const id of ids) {
      const hit = cache?.get(id);
      if (hit) out.set(id, hit);
      else missing.push(id);
    }
    // The lookup runs even when everything was cached: a page costs the same queries.
    const found = findAccountsWithBadges(app.db, missing);
    const accounts = found.map((f) => f.account);
    const badges = new Map<Id, UserBadge>();
    for (const f of found) if (f.badge) badges.set(f.account.id, f.badge);
    const batch = loadBatch(app, accounts, badges);
    for (const a of accounts) {
      const e = deepFreeze({ json: render(app, a, batch, false), domain: a.domain });
      out.set(a.id, e);
      // Not cached: a moved account (it embeds its target's rendering, which is not watched
      // for it) and a very large profile (see MAX_CACHED_CHARS).
      if (a.movedToAccountId === null && profileChars(a) <= MAX_CACHED_CHARS) cache?.set(a.id, e);
    }
    return out;
  });
}

// Mastodon caps the count shown to the owner (FollowRequest...limit(40).count).
const FOLLOW_REQUESTS_CAP = 40;

/**
 * A CredentialAccount's plain-text fields and follow-request count, by account id. Any
 * account change drops them all (the count skips suspended requesters), and so does a follow
 * request to the account.
 */
export const CREDENTIAL_EXTRAS_CACHE: RowCacheSpec = {
  name: "credential-extras",
  max: 1024,
  watches: [
    ["accounts", null],
    ["follow_requests", "target_account_id"],
  ],
};

function credentialExtras(app: App, accountId: Id): CredentialExtras {
  const cache = findRowCache<CredentialExtras>(app, CREDENTIAL_EXTRAS_CACHE);
  cache?.sync();
  const hit = cache?.get(accountId);
  if (hit) return hit;
  const extras = deepFreeze(findCredentialExtras(app.db, accountId, FOLLOW_REQUESTS_CAP));
  cache?.set(accountId, extras);
  return extras;
}

/** CredentialAccount: Account plus `source` (and `role`) for the account's own user. */
export function toApiCredentialAccount(app: App, account: Account, user: User): ApiAccount {
  // The caller holds the user, so the common case (no emojis, not moved) reads nothing more.
  const known = new Map([[account.id, userBadge(user.role, user.settings)]]);
  const base = render(app, account, loadBatch(app, [account], known), false);
  const extras = credentialExtras(app, account.id);
  const verified = account.fields;
  const source = {
    privacy: user.defaultPrivacy,
    sensitive: user.defaultSensitive,
    language: user.defaultLanguage,
    note: account.noteSource,
    fields: extras.fieldSources.map((f, i) => ({
      name: f.name,
      value: f.value,
      verified_at: verified[i]?.verified_at ?? null,
    })),
    follow_requests_count: extras.followRequests,
    hide_collections: account.hideCollections,
    discoverable: account.discoverable,
    indexable: account.indexable,
    attribution_domains: [] as string[],
  };
  base.source = source;
  base.role = toApiRole(user.role);
  return base;
}
