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
  };
}

export type NewStatus = Omit<Status, "repliesCount" | "reblogsCount" | "favouritesCount" | "editedAt" | "deletedAt" | "updatedAt">;

export function insertStatus(db: DB, s: NewStatus): void {
  stmt(
    db,
    `INSERT INTO statuses (id, account_id, local, uri, url, text, content, spoiler_text, sensitive, visibility,
       language, in_reply_to_id, in_reply_to_account_id, in_reply_to_uri, reblog_of_id, conversation_id,
       application_id, created_at, updated_at)
     VALUES (@id, @accountId, @local, @uri, @url, @text, @content, @spoilerText, @sensitive, @visibility,
       @language, @inReplyToId, @inReplyToAccountId, @inReplyToUri, @reblogOfId, @conversationId,
       @applicationId, @createdAt, @createdAt)`,
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
