// https://docs.joinmastodon.org/entities/Account/ and CredentialAccount (entities-core.md).
import { domainToUnicode } from "node:url";
import type { App } from "../app.ts";
import { deepFreeze, findRowCache, MAX_CACHED_CHARS, type RowCacheSpec } from "../storage/row-cache.ts";
import type { Id } from "../lib/ids.ts";
import { mediaStore } from "../media/store.ts";
import { defaultAvatarUrl, defaultHeaderUrl } from "../media/default-images.ts";
import { stillName } from "../media/files.ts";
import type { Account } from "../storage/accounts.ts";
import { accountShortcodes, type AccountPage, loadAccountPage, readAccountPage, readUncachedAccounts } from "../storage/account-page.ts";
import { type CredentialExtras, findCredentialExtras, type UserBadge, userBadge } from "../storage/account-profile.ts";
import type { User } from "../storage/users.ts";
import { type ApiCustomEmoji, toApiCustomEmojiMap } from "./custom-emoji.ts";
import { type RoleTable, roleOf, toApiAccountRoles, toApiRole } from "./role.ts";
import { listRoles } from "../storage/user-roles.ts";

export type ApiAccount = Record<string, unknown> & { id: string; username: string; acct: string };

/** A page's reads (storage/account-page.ts), with its emojis as entities. */
interface Batch {
  users: Map<Id, UserBadge>;
  roles: RoleTable;
  moved: Map<Id, Account>;
  /** Key: `${domain ?? ""} ${shortcode}`. */
  emojis: Map<string, ApiCustomEmoji>;
}

const DAY = 86_400_000;

const batchOf = (app: App, page: AccountPage): Batch => ({ users: page.users, roles: page.roles, moved: page.moved, emojis: toApiCustomEmojiMap(app, page.emojis) });

const midnight = (ms: number) => new Date(ms - (((ms % DAY) + DAY) % DAY)).toISOString();
const day = (ms: number) => new Date(ms).toISOString().slice(0, 10);

function imageUrls(app: App, file: string | null, type: string | null, remote: string | null, fallback: string) {
  if (file) {
    const still = stillName(file, type);
    const store = mediaStore(app);
    return { url: store.url(file), still: store.url(still ?? file) };
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
    for (const code of accountShortcodes(a)) {
      const e = batch.emojis.get(`${a.domain ?? ""} ${code}`);
      if (e && !seen.has(code)) {
        seen.add(code);
        emojis.push(e);
      }
    }
  }
  out.emojis = emojis;
  out.fields = suspended ? [] : a.fields.map((f) => ({ name: f.name, value: f.value, verified_at: f.verified_at ?? null }));
  if (local) out.roles = suspended || !user || user.roleId === null ? [] : toApiAccountRoles(batch.roles, user.roleId);
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
  const batch = batchOf(app, readAccountPage(app.db, accounts));
  return accounts.map((a) => render(app, a, batch, false));
}

/** An account as pages of statuses and notifications embed it, with its domain (for emojis). */
export interface EmbeddedAccount {
  json: ApiAccount;
  domain: string | null;
  /** A moderator marked its media sensitive: its posts show `sensitive: true` to others. */
  sensitized?: boolean;
}

export const EMBEDDED_ACCOUNTS_CACHE: RowCacheSpec = {
  name: "embedded-accounts",
  max: 5_000,
  watches: [
    ["accounts", "id"],
    ["users", "account_id"],
    ["custom_emojis", null],
    // Account.roles shows the role's name and colour.
    ["user_roles", null],
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
  const { cached: out, accounts, page } = readUncachedAccounts(app.db, ids, cache);
  const batch = batchOf(app, page);
  for (const a of accounts) {
    const e = deepFreeze({ json: render(app, a, batch, false), domain: a.domain, sensitized: a.sensitizedAt !== null });
    out.set(a.id, e);
    // Not cached: a moved account (it embeds its target's rendering, which is not watched
    // for it) and a very large profile (see MAX_CACHED_CHARS).
    if (a.movedToAccountId === null && profileChars(a) <= MAX_CACHED_CHARS) cache?.set(a.id, e);
  }
  return out;
}

/** Accounts by id in the order given (unknown ids left out), through the cached renderings. */
export function toApiAccountsByIds(app: App, ids: Id[]): ApiAccount[] {
  const found = embeddedAccounts(app, ids);
  return ids.flatMap((id) => found.get(id)?.json ?? []);
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
  const known = new Map([[account.id, userBadge(user.roleId, user.settings)]]);
  const base = render(app, account, batchOf(app, loadAccountPage(app.db, [account], known)), false);
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
    attribution_domains: [...extras.attributionDomains],
  };
  base.source = source;
  const roles: RoleTable = new Map(listRoles(app.db).map((r) => [r.id, r]));
  base.role = toApiRole(roles, roleOf(roles, user.roleId));
  return base;
}
