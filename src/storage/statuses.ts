import { type DB, type Row, stmt, str, strOrNull, num, numOrNull, bool, idListJson } from "../db/db.ts";
import type { Id } from "../lib/ids.ts";
import type { Privacy } from "./users.ts";

export type Visibility = Privacy;

/** A status row, local or remote. A boost (reblog) is a status with reblogOfId set and no text. */
export interface Status {
  id: Id;
  accountId: Id;
  local: boolean;
  uri: string;
  url: string | null;
  text: string;
  content: string;
  spoilerText: string;
  sensitive: boolean;
  visibility: Visibility;
  language: string | null;
  inReplyToId: Id | null;
  inReplyToAccountId: Id | null;
  inReplyToUri: string | null;
  reblogOfId: Id | null;
  conversationId: Id | null;
  applicationId: Id | null;
  repliesCount: number;
  reblogsCount: number;
  favouritesCount: number;
  editedAt: number | null;
  deletedAt: number | null;
  createdAt: number;
  updatedAt: number;
  /** Remote "limited" post: stored as direct, shown as private (migration 0011). */
  limited: boolean;
  /** Remote posts: the origin's counts (likes/shares totalItems), untrusted. */
  untrustedFavouritesCount: number | null;
  untrustedReblogsCount: number | null;
  /** Its poll (migration 0022), or null. */
  pollId: Id | null;
}

export function rowToStatus(r: Row): Status {
  return {
    id: str(r.id),
    accountId: str(r.account_id),
    local: bool(r.local),
    uri: r.uri as string,
    url: (r.url as string | null) ?? null,
    text: r.text as string,
    content: r.content as string,
    spoilerText: r.spoiler_text as string,
    sensitive: bool(r.sensitive),
    visibility: r.visibility as Visibility,
    language: (r.language as string | null) ?? null,
    inReplyToId: strOrNull(r.in_reply_to_id),
    inReplyToAccountId: strOrNull(r.in_reply_to_account_id),
    inReplyToUri: (r.in_reply_to_uri as string | null) ?? null,
    reblogOfId: strOrNull(r.reblog_of_id),
    conversationId: strOrNull(r.conversation_id),
    applicationId: strOrNull(r.application_id),
    repliesCount: num(r.replies_count),
    reblogsCount: num(r.reblogs_count),
    favouritesCount: num(r.favourites_count),
    editedAt: numOrNull(r.edited_at),
    deletedAt: numOrNull(r.deleted_at),
    createdAt: num(r.created_at),
    updatedAt: num(r.updated_at),
    limited: bool(r.limited),
    untrustedFavouritesCount: numOrNull(r.untrusted_favourites_count),
    untrustedReblogsCount: numOrNull(r.untrusted_reblogs_count),
    pollId: strOrNull(r.poll_id),
  };
}

type RemoteOnly = "limited" | "untrustedFavouritesCount" | "untrustedReblogsCount";
/** A poll is attached after the row exists (storage/polls.ts insertPoll). */
export type NewStatus = Omit<Status, "repliesCount" | "reblogsCount" | "favouritesCount" | "editedAt" | "deletedAt" | "updatedAt" | "pollId" | RemoteOnly> &
  Partial<Pick<Status, RemoteOnly>>;

export function insertStatus(db: DB, s: NewStatus): void {
  stmt(
    db,
    `INSERT INTO statuses (id, account_id, local, uri, url, text, content, spoiler_text, sensitive, visibility,
       language, in_reply_to_id, in_reply_to_account_id, in_reply_to_uri, reblog_of_id, conversation_id,
       application_id, created_at, updated_at, limited, untrusted_favourites_count, untrusted_reblogs_count)
     VALUES (@id, @accountId, @local, @uri, @url, @text, @content, @spoilerText, @sensitive, @visibility,
       @language, @inReplyToId, @inReplyToAccountId, @inReplyToUri, @reblogOfId, @conversationId,
       @applicationId, @createdAt, @createdAt, @limited, @untrustedFavourites, @untrustedReblogs)`,
  ).run({
    id: BigInt(s.id),
    accountId: BigInt(s.accountId),
    local: s.local ? 1 : 0,
    uri: s.uri,
    url: s.url,
    text: s.text,
    content: s.content,
    spoilerText: s.spoilerText,
    sensitive: s.sensitive ? 1 : 0,
    visibility: s.visibility,
    language: s.language,
    inReplyToId: s.inReplyToId ? BigInt(s.inReplyToId) : null,
    inReplyToAccountId: s.inReplyToAccountId ? BigInt(s.inReplyToAccountId) : null,
    inReplyToUri: s.inReplyToUri,
    reblogOfId: s.reblogOfId ? BigInt(s.reblogOfId) : null,
    conversationId: s.conversationId ? BigInt(s.conversationId) : null,
    applicationId: s.applicationId ? BigInt(s.applicationId) : null,
    createdAt: s.createdAt,
    limited: s.limited ? 1 : 0,
    untrustedFavourites: s.untrustedFavouritesCount ?? null,
    untrustedReblogs: s.untrustedReblogsCount ?? null,
  });
}

/** A live (not deleted) status by id. */
export function findStatusById(db: DB, id: Id): Status | undefined {
  const r = stmt(db, "SELECT * FROM statuses WHERE id = ? AND deleted_at IS NULL").get(BigInt(id)) as Row | undefined;
  return r && rowToStatus(r);
}

/** Live statuses by id, one query; missing ids are absent from the map. */
export function findStatusesByIds(db: DB, ids: Iterable<Id>): Map<Id, Status> {
  const out = new Map<Id, Status>();
  const json = idListJson(ids);
  if (json === "[]") return out;
  const rows = stmt(db, "SELECT * FROM statuses WHERE id IN (SELECT value FROM json_each(?)) AND deleted_at IS NULL").all(json) as Row[];
  for (const r of rows) {
    const s = rowToStatus(r);
    out.set(s.id, s);
  }
  return out;
}

export function findStatusByUri(db: DB, uri: string): Status | undefined {
  const r = stmt(db, "SELECT * FROM statuses WHERE uri = ? AND deleted_at IS NULL").get(uri) as Row | undefined;
  return r && rowToStatus(r);
}

/** The viewer's boost of a status, if any. */
export function findReblog(db: DB, accountId: Id, reblogOfId: Id): Status | undefined {
  const r = stmt(db, "SELECT * FROM statuses WHERE account_id = ? AND reblog_of_id = ? AND deleted_at IS NULL LIMIT 1").get(
    BigInt(accountId),
    BigInt(reblogOfId),
  ) as Row | undefined;
  return r && rowToStatus(r);
}

// ---- Writes and thread queries of the statuses package ----

export type StatusCounter = "replies_count" | "reblogs_count" | "favourites_count";

/** Adds `delta` to a status counter, never going below zero. */
export function adjustStatusCounter(db: DB, statusId: Id, counter: StatusCounter, delta: number): void {
  stmt(db, `UPDATE statuses SET ${counter} = max(0, ${counter} + @delta) WHERE id = @id`).run({ id: BigInt(statusId), delta });
}

/**
 * An author's statuses_count (Mastodon's AccountStat): +1 also moves last_status_at to `at`;
 * -1 never goes below zero.
 */
export function adjustAuthorStatusesCount(db: DB, accountId: Id, delta: number, at?: number): void {
  if (delta > 0 && at !== undefined) {
    stmt(
      db,
      "UPDATE accounts SET statuses_count = statuses_count + @delta, last_status_at = max(coalesce(last_status_at, 0), @at) WHERE id = @id",
    ).run({ id: BigInt(accountId), delta, at });
  } else {
    stmt(db, "UPDATE accounts SET statuses_count = max(0, statuses_count + @delta) WHERE id = @id").run({ id: BigInt(accountId), delta });
  }
}

/** Boosters of a status lose the boost from their statuses_count (the rows cascade away with it). */
export function decrementBoostersStatusesCount(db: DB, originalId: Id): void {
  stmt(
    db,
    `UPDATE accounts SET statuses_count = max(0, statuses_count - b.n)
     FROM (SELECT account_id, count(*) AS n FROM statuses WHERE reblog_of_id = @id AND visibility <> 'direct' GROUP BY account_id) AS b
     WHERE accounts.id = b.account_id`,
  ).run({ id: BigInt(originalId) });
}

export interface StatusContentUpdate {
  text: string;
  content: string;
  spoilerText: string;
  sensitive: boolean;
  language: string | null;
  editedAt: number;
}

export function updateStatusContent(db: DB, id: Id, u: StatusContentUpdate): void {
  stmt(
    db,
    `UPDATE statuses SET text = @text, content = @content, spoiler_text = @spoilerText, sensitive = @sensitive,
       language = @language, edited_at = @editedAt, updated_at = @editedAt WHERE id = @id`,
  ).run({
    id: BigInt(id),
    text: u.text,
    content: u.content,
    spoilerText: u.spoilerText,
    sensitive: u.sensitive ? 1 : 0,
    language: u.language,
    editedAt: u.editedAt,
  });
}

/** Hard delete: mentions, tags links, favourites, bookmarks, pins, edits, feeds and boosts cascade. */
export function deleteStatusRow(db: DB, id: Id): void {
  stmt(db, "DELETE FROM statuses WHERE id = ?").run(BigInt(id));
}

/** Ids of the ancestors of a status, nearest `limit` of them, oldest first. */
export function ancestorIds(db: DB, id: Id, limit: number): Id[] {
  const rows = stmt(
    db,
    `WITH RECURSIVE up(id, parent, depth) AS (
       SELECT id, in_reply_to_id, 0 FROM statuses WHERE id = @id
       UNION ALL
       SELECT s.id, s.in_reply_to_id, up.depth + 1 FROM up JOIN statuses s ON s.id = up.parent WHERE up.depth < @limit
     )
     SELECT id FROM up WHERE depth > 0 ORDER BY depth DESC`,
  ).all({ id: BigInt(id), limit }) as Row[];
  return rows.map((r) => str(r.id));
}

/**
 * Ids of the replies below a status in depth-first thread order (Mastodon orders by the path
 * of ids from the root, so siblings come oldest first), at most `limit`, `maxDepth` levels.
 */
export function descendantIds(db: DB, id: Id, limit: number, maxDepth: number): Id[] {
  const rows = stmt(
    db,
    `WITH RECURSIVE down(id, path, depth) AS (
       SELECT id, printf('%020d', id), 0 FROM statuses WHERE id = @id
       UNION ALL
       SELECT s.id, down.path || '/' || printf('%020d', s.id), down.depth + 1
       FROM down JOIN statuses s ON s.in_reply_to_id = down.id
       WHERE down.depth < @maxDepth
     )
     SELECT id FROM down WHERE depth > 0 ORDER BY path LIMIT @limit`,
  ).all({ id: BigInt(id), limit, maxDepth }) as Row[];
  return rows.map((r) => str(r.id));
}

/** Ids of the direct replies to a status, oldest first. */
export function replyIdsOf(db: DB, id: Id, limit: number): Id[] {
  const rows = stmt(db, "SELECT id FROM statuses WHERE in_reply_to_id = @id ORDER BY id LIMIT @limit").all({ id: BigInt(id), limit }) as Row[];
  return rows.map((r) => str(r.id));
}
