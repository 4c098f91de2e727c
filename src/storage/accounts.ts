import { type DB, type Row, idListJson, stmt, str, strOrNull, num, numOrNull, bool, json } from "../db/db.ts";
import { allRows, getRow } from "../db/rows.ts";
import type { Id } from "../lib/ids.ts";

export interface ProfileField {
  name: string;
  value: string; // HTML
  verified_at: string | null;
}

/** An account row, local (domain null) or remote. */
export interface Account {
  id: Id;
  username: string;
  domain: string | null;
  displayName: string;
  note: string;
  noteSource: string;
  fields: ProfileField[];
  actorType: string;
  locked: boolean;
  discoverable: boolean | null;
  indexable: boolean;
  hideCollections: boolean;
  memorial: boolean;
  movedToAccountId: Id | null;
  alsoKnownAs: string[];
  uri: string;
  url: string | null;
  inboxUrl: string | null;
  sharedInboxUrl: string | null;
  outboxUrl: string | null;
  followersUrl: string | null;
  followingUrl: string | null;
  featuredUrl: string | null;
  featuredTagsUrl: string | null;
  publicKeyPem: string | null;
  privateKeyPem: string | null;
  publicKeyId: string | null;
  avatarFile: string | null;
  avatarContentType: string | null;
  avatarRemoteUrl: string | null;
  headerFile: string | null;
  headerContentType: string | null;
  headerRemoteUrl: string | null;
  suspendedAt: number | null;
  silencedAt: number | null;
  /** Media shown as sensitive to others (a moderator's `sensitive` action; migration 0031). */
  sensitizedAt: number | null;
  /** 'local': our moderators suspended it; 'remote': its own server did (migration 0012). */
  suspensionOrigin: "local" | "remote" | null;
  followersCount: number;
  followingCount: number;
  statusesCount: number;
  lastStatusAt: number | null;
  lastWebfingeredAt: number | null;
  /** Remote accounts: when the actor document was last fetched (migration 0010). */
  fetchedAt: number | null;
  createdAt: number;
  updatedAt: number;
}

export function rowToAccount(r: Row): Account {
  return {
    id: str(r.id),
    username: r.username as string,
    domain: (r.domain as string | null) ?? null,
    displayName: r.display_name as string,
    note: r.note as string,
    noteSource: r.note_source as string,
    fields: json<ProfileField[]>(r.fields, []),
    actorType: r.actor_type as string,
    locked: bool(r.locked),
    discoverable: r.discoverable === null ? null : bool(r.discoverable),
    indexable: bool(r.indexable),
    hideCollections: bool(r.hide_collections),
    memorial: bool(r.memorial),
    movedToAccountId: strOrNull(r.moved_to_account_id),
    alsoKnownAs: json<string[]>(r.also_known_as, []),
    uri: r.uri as string,
    url: (r.url as string | null) ?? null,
    inboxUrl: (r.inbox_url as string | null) ?? null,
    sharedInboxUrl: (r.shared_inbox_url as string | null) ?? null,
    outboxUrl: (r.outbox_url as string | null) ?? null,
    followersUrl: (r.followers_url as string | null) ?? null,
    followingUrl: (r.following_url as string | null) ?? null,
    featuredUrl: (r.featured_url as string | null) ?? null,
    featuredTagsUrl: (r.featured_tags_url as string | null) ?? null,
    publicKeyPem: (r.public_key_pem as string | null) ?? null,
    privateKeyPem: (r.private_key_pem as string | null) ?? null,
    publicKeyId: (r.public_key_id as string | null) ?? null,
    avatarFile: (r.avatar_file as string | null) ?? null,
    avatarContentType: (r.avatar_content_type as string | null) ?? null,
    avatarRemoteUrl: (r.avatar_remote_url as string | null) ?? null,
    headerFile: (r.header_file as string | null) ?? null,
    headerContentType: (r.header_content_type as string | null) ?? null,
    headerRemoteUrl: (r.header_remote_url as string | null) ?? null,
    suspendedAt: numOrNull(r.suspended_at),
    silencedAt: numOrNull(r.silenced_at),
    sensitizedAt: numOrNull(r.sensitized_at),
    suspensionOrigin: (r.suspension_origin as Account["suspensionOrigin"] | undefined) ?? null,
    followersCount: num(r.followers_count),
    followingCount: num(r.following_count),
    statusesCount: num(r.statuses_count),
    lastStatusAt: numOrNull(r.last_status_at),
    lastWebfingeredAt: numOrNull(r.last_webfingered_at),
    fetchedAt: numOrNull(r.fetched_at),
    createdAt: num(r.created_at),
    updatedAt: num(r.updated_at),
  };
}

// Domain field name → column name, for inserts and partial updates.
const COLUMNS: Record<string, string> = {
  id: "id",
  username: "username",
  domain: "domain",
  displayName: "display_name",
  note: "note",
  noteSource: "note_source",
  fields: "fields",
  actorType: "actor_type",
  locked: "locked",
  discoverable: "discoverable",
  indexable: "indexable",
  hideCollections: "hide_collections",
  memorial: "memorial",
  movedToAccountId: "moved_to_account_id",
  alsoKnownAs: "also_known_as",
  uri: "uri",
  url: "url",
  inboxUrl: "inbox_url",
  sharedInboxUrl: "shared_inbox_url",
  outboxUrl: "outbox_url",
  followersUrl: "followers_url",
  followingUrl: "following_url",
  featuredUrl: "featured_url",
  featuredTagsUrl: "featured_tags_url",
  publicKeyPem: "public_key_pem",
  privateKeyPem: "private_key_pem",
  publicKeyId: "public_key_id",
  avatarFile: "avatar_file",
  avatarContentType: "avatar_content_type",
  avatarRemoteUrl: "avatar_remote_url",
  headerFile: "header_file",
  headerContentType: "header_content_type",
  headerRemoteUrl: "header_remote_url",
  suspendedAt: "suspended_at",
  silencedAt: "silenced_at",
  sensitizedAt: "sensitized_at",
  suspensionOrigin: "suspension_origin",
  followersCount: "followers_count",
  followingCount: "following_count",
  statusesCount: "statuses_count",
  lastStatusAt: "last_status_at",
  lastWebfingeredAt: "last_webfingered_at",
  fetchedAt: "fetched_at",
  createdAt: "created_at",
  updatedAt: "updated_at",
};

function toDb(v: unknown): unknown {
  if (typeof v === "boolean") return v ? 1 : 0;
  if (Array.isArray(v)) return JSON.stringify(v);
  return v;
}

export type NewAccount = Partial<Account> & Pick<Account, "id" | "username" | "uri" | "createdAt" | "updatedAt">;

export function insertAccount(db: DB, a: NewAccount): void {
  const keys = Object.keys(a).filter((k) => k in COLUMNS && (a as Record<string, unknown>)[k] !== undefined);
  const sql = `INSERT INTO accounts (${keys.map((k) => COLUMNS[k]).join(", ")}) VALUES (${keys.map((k) => "@" + k).join(", ")})`;
  const params: Record<string, unknown> = {};
  for (const k of keys) params[k] = toDb((a as Record<string, unknown>)[k]);
  stmt(db, sql).run(params);
}

/** Updates the given fields of an account (a partial Account). */
export function updateAccount(db: DB, id: Id, patch: Partial<Account>): void {
  const keys = Object.keys(patch).filter((k) => k in COLUMNS && k !== "id");
  if (keys.length === 0) return;
  const sql = `UPDATE accounts SET ${keys.map((k) => `${COLUMNS[k]} = @${k}`).join(", ")} WHERE id = @id`;
  const params: Record<string, unknown> = { id: BigInt(id) };
  for (const k of keys) params[k] = toDb((patch as Record<string, unknown>)[k]);
  stmt(db, sql).run(params);
}

export function findAccountById(db: DB, id: Id): Account | undefined {
  const r = getRow(db, "SELECT * FROM accounts WHERE id = ?", BigInt(id));
  return r && rowToAccount(r);
}

/** Loads several accounts in one query (serializers batch a page's lookups). */
export function findAccountsByIds(db: DB, ids: Id[]): Map<Id, Account> {
  const out = new Map<Id, Account>();
  const uniq = [...new Set(ids)];
  if (uniq.length === 0) return out;
  for (const r of allRows(db, "SELECT * FROM accounts WHERE id IN (SELECT value FROM json_each(?))", idListJson(uniq))) {
    const a = rowToAccount(r);
    out.set(a.id, a);
  }
  return out;
}

/** What visibility rules ask of an account: a narrow row, cheap to read for a page of authors. */
export interface AccountStanding {
  suspendedAt: number | null;
  silencedAt: number | null;
  indexable: boolean;
}

/** The standing of several accounts in one query (missing ids are absent). */
export function findAccountStandings(db: DB, ids: Iterable<Id>): Map<Id, AccountStanding> {
  const out = new Map<Id, AccountStanding>();
  const rows = stmt(db, "SELECT id, suspended_at, silenced_at, indexable FROM accounts WHERE id IN (SELECT value FROM json_each(?))").all(
    idListJson(ids),
  ) as Row[];
  for (const r of rows) out.set(str(r.id), { suspendedAt: numOrNull(r.suspended_at), silencedAt: numOrNull(r.silenced_at), indexable: bool(r.indexable) });
  return out;
}

/** `domain` null for a local account. Case-insensitive, as Mastodon's handles. */
export function findAccountByHandle(db: DB, username: string, domain: string | null): Account | undefined {
  const r = getRow(
    db,
    "SELECT * FROM accounts WHERE lower(username) = lower(?) AND coalesce(lower(domain), '') = coalesce(lower(?), '')",
    username,
    domain,
  );
  return r && rowToAccount(r);
}

export function findAccountByUri(db: DB, uri: string): Account | undefined {
  const r = getRow(db, "SELECT * FROM accounts WHERE uri = ?", uri);
  return r && rowToAccount(r);
}

export function countLocalAccounts(db: DB): number {
  return num((stmt(db, "SELECT count(*) AS n FROM accounts WHERE domain IS NULL").get() as Row).n);
}
