import { type DB, type Row, stmt, str, num, idListJson, json } from "../db/db.ts";
import type { Id } from "../lib/ids.ts";
import { ATTACHMENT_ORDER, CURRENT_ATTACHMENT } from "./media-attachments.ts";
import { rowToStatus, type Status } from "./statuses.ts";

// Read-only lookups of the ActivityPub serializers (federation/serializers): what a Note or a
// collection shows that the REST entities do not need. Every list lookup takes a page of ids
// and costs one statement.

export interface StatusTag {
  /** Normalised name (the URL form). */
  name: string;
  /** As first written (the `#Name` of a Hashtag). */
  display: string;
}

/** Hashtags of several statuses, sorted by name within a status. */
export function findStatusTagsWithDisplay(db: DB, statusIds: Iterable<Id>): Map<Id, StatusTag[]> {
  const out = new Map<Id, StatusTag[]>();
  const ids = idListJson(statusIds);
  if (ids === "[]") return out;
  const rows = stmt(
    db,
    `SELECT st.status_id, t.name, t.display_name FROM json_each(?) j
       CROSS JOIN statuses_tags st ON st.status_id = j.value JOIN tags t ON t.id = st.tag_id
     ORDER BY t.name`,
  ).all(ids) as Row[];
  for (const r of rows) push(out, str(r.status_id), { name: r.name as string, display: (r.display_name as string) || (r.name as string) });
  return out;
}

export interface StatusMedia {
  id: Id;
  type: string;
  file: string | null;
  contentType: string | null;
  thumbnailFile: string | null;
  remoteUrl: string | null;
  description: string | null;
  blurhash: string | null;
  meta: Record<string, unknown>;
}

/** Media attachments of several statuses, in attachment order. */
export function findMediaOfStatuses(db: DB, statusIds: Iterable<Id>): Map<Id, StatusMedia[]> {
  const out = new Map<Id, StatusMedia[]>();
  const ids = idListJson(statusIds);
  if (ids === "[]") return out;
  const rows = stmt(
    db,
    `SELECT m.* FROM json_each(?) j CROSS JOIN media_attachments m ON m.status_id = j.value
     WHERE ${CURRENT_ATTACHMENT} ORDER BY ${ATTACHMENT_ORDER}`,
  ).all(ids) as Row[];
  for (const r of rows) {
    push(out, str(r.status_id), {
      id: str(r.id),
      type: r.type as string,
      file: (r.file as string | null) ?? null,
      contentType: (r.content_type as string | null) ?? null,
      thumbnailFile: (r.thumbnail_file as string | null) ?? null,
      remoteUrl: (r.remote_url as string | null) ?? null,
      description: (r.description as string | null) ?? null,
      blurhash: (r.blurhash as string | null) ?? null,
      meta: json<Record<string, unknown>>(r.meta, {}),
    });
  }
  return out;
}

export interface ConversationInfo {
  id: Id;
  /** The remote context/conversation id; null for threads started here. */
  uri: string | null;
  createdAt: number;
  /** Author of the conversation's first status (names the FEP-7888 context URL). */
  rootAccountId: Id | null;
}

export function findConversations(db: DB, conversationIds: Iterable<Id>): Map<Id, ConversationInfo> {
  const out = new Map<Id, ConversationInfo>();
  const ids = idListJson(new Set(conversationIds));
  if (ids === "[]") return out;
  const rows = stmt(
    db,
    `SELECT c.id, c.uri, c.created_at,
       (SELECT s.account_id FROM statuses s WHERE s.conversation_id = c.id ORDER BY s.id LIMIT 1) AS root_account_id
     FROM json_each(?) j CROSS JOIN conversations c ON c.id = j.value`,
  ).all(ids) as Row[];
  for (const r of rows) {
    const id = str(r.id);
    out.set(id, {
      id,
      uri: (r.uri as string | null) ?? null,
      createdAt: num(r.created_at),
      rootAccountId: r.root_account_id === null ? null : str(r.root_account_id),
    });
  }
  return out;
}

/**
 * The first `limit` public/unlisted replies of each status by its own author (Mastodon's
 * self_replies, the first page of a Note's `replies`), oldest first.
 */
export function findSelfReplies(db: DB, statusIds: Iterable<Id>, limit: number): Map<Id, { id: Id; uri: string }[]> {
  const out = new Map<Id, { id: Id; uri: string }[]>();
  const ids = idListJson(statusIds);
  if (ids === "[]") return out;
  const rows = stmt(
    db,
    `SELECT parent_id, id, uri FROM (
       SELECT p.id AS parent_id, r.id, r.uri, row_number() OVER (PARTITION BY p.id ORDER BY r.id) AS n
       FROM json_each(@ids) j CROSS JOIN statuses p ON p.id = j.value
         JOIN statuses r ON r.in_reply_to_id = p.id AND r.account_id = p.account_id
       WHERE r.visibility IN ('public', 'unlisted') AND r.deleted_at IS NULL AND r.reblog_of_id IS NULL)
     WHERE n <= @limit ORDER BY parent_id, id`,
  ).all({ ids, limit }) as Row[];
  for (const r of rows) push(out, str(r.parent_id), { id: str(r.id), uri: r.uri as string });
  return out;
}

/**
 * A page of the public/unlisted replies to a status (the `replies` collection): by the
 * author itself, or by everyone else (`others`, suspended accounts left out), ascending
 * from `minId`.
 */
export function repliesPage(db: DB, statusId: Id, authorId: Id, others: boolean, minId: Id | null, limit: number): Status[] {
  const rows = stmt(
    db,
    `SELECT s.* FROM statuses s JOIN accounts a ON a.id = s.account_id
     WHERE s.in_reply_to_id = @status AND s.id > @minId AND s.deleted_at IS NULL AND s.reblog_of_id IS NULL
       AND s.visibility IN ('public', 'unlisted') AND a.suspended_at IS NULL
       AND ${others ? "s.account_id <> @author" : "s.account_id = @author"}
     ORDER BY s.id LIMIT @limit`,
  ).all({ status: BigInt(statusId), author: BigInt(authorId), minId: BigInt(minId ?? "0"), limit }) as Row[];
  return rows.map(rowToStatus);
}

/**
 * Which of `accountIds` follow `authorId` or asked to (a silenced author's posts address only
 * those of its mentions, AP §4.3).
 */
export function followersOrRequestersAmong(db: DB, authorId: Id, accountIds: Iterable<Id>): Set<Id> {
  const ids = idListJson(accountIds);
  if (ids === "[]") return new Set();
  const rows = stmt(
    db,
    `SELECT account_id FROM follows WHERE target_account_id = @author AND account_id IN (SELECT value FROM json_each(@ids))
     UNION SELECT account_id FROM follow_requests WHERE target_account_id = @author AND account_id IN (SELECT value FROM json_each(@ids))`,
  ).all({ author: BigInt(authorId), ids }) as Row[];
  return new Set(rows.map((r) => str(r.account_id)));
}

/**
 * Actor ids of one page of an account's followers (or of the accounts it follows), newest
 * follow first, suspended accounts left out.
 *
 * OFFSET, against the keyset default: the collection's wire format is `?page=N` (AP §6),
 * which peers take from our own `first`/`next` links; the follows index keeps the skipped
 * rows cheap, and a small instance's follower lists are short.
 */
export function followActorUrisPage(db: DB, accountId: Id, direction: "followers" | "following", limit: number, offset: number): string[] {
  const sql =
    direction === "followers"
      ? `SELECT a.uri FROM follows f JOIN accounts a ON a.id = f.account_id
         WHERE f.target_account_id = @account AND a.suspended_at IS NULL ORDER BY f.id DESC LIMIT @limit OFFSET @offset`
      : `SELECT a.uri FROM follows f JOIN accounts a ON a.id = f.target_account_id
         WHERE f.account_id = @account AND a.suspended_at IS NULL ORDER BY f.id DESC LIMIT @limit OFFSET @offset`;
  const rows = stmt(db, sql).all({ account: BigInt(accountId), limit, offset }) as Row[];
  return rows.map((r) => r.uri as string);
}

function push<T>(m: Map<Id, T[]>, key: Id, v: T): void {
  const list = m.get(key);
  if (list) list.push(v);
  else m.set(key, [v]);
}
