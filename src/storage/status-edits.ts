import { type DB, type Row, stmt, str, num, bool, json } from "../db/db.ts";
import type { Id } from "../lib/ids.ts";

/** One revision of a status (GET /api/v1/statuses/:id/history). */
export interface StatusEdit {
  id: Id;
  statusId: Id;
  accountId: Id;
  text: string;
  content: string;
  spoilerText: string;
  sensitive: boolean;
  language: string | null;
  mediaIds: Id[];
  /** The revision's poll: its option titles; null without a poll. */
  pollOptions: string[] | null;
  createdAt: number;
}

function rowToStatusEdit(r: Row): StatusEdit {
  let mediaIds: Id[] = [];
  try {
    mediaIds = (JSON.parse(r.media_ids as string) as unknown[]).map(String);
  } catch {
    mediaIds = [];
  }
  return {
    id: str(r.id),
    statusId: str(r.status_id),
    accountId: str(r.account_id),
    text: r.text as string,
    content: r.content as string,
    spoilerText: r.spoiler_text as string,
    sensitive: bool(r.sensitive),
    language: (r.language as string | null) ?? null,
    mediaIds,
    pollOptions: r.poll_options === null || r.poll_options === undefined ? null : json<unknown[]>(r.poll_options, []).map(String),
    createdAt: num(r.created_at),
  };
}

export function insertStatusEdit(db: DB, e: StatusEdit): void {
  stmt(
    db,
    `INSERT INTO status_edits (id, status_id, account_id, text, content, spoiler_text, sensitive, language, media_ids, poll_options, created_at)
     VALUES (@id, @statusId, @accountId, @text, @content, @spoilerText, @sensitive, @language, @mediaIds, @pollOptions, @createdAt)`,
  ).run({
    id: BigInt(e.id),
    statusId: BigInt(e.statusId),
    accountId: BigInt(e.accountId),
    text: e.text,
    content: e.content,
    spoilerText: e.spoilerText,
    sensitive: e.sensitive ? 1 : 0,
    language: e.language,
    mediaIds: JSON.stringify(e.mediaIds),
    pollOptions: e.pollOptions === null ? null : JSON.stringify(e.pollOptions),
    createdAt: e.createdAt,
  });
}

export function hasStatusEdits(db: DB, statusId: Id): boolean {
  return !!stmt(db, "SELECT 1 FROM status_edits WHERE status_id = ? LIMIT 1").get(BigInt(statusId));
}

/** Revisions oldest first. */
export function listStatusEdits(db: DB, statusId: Id): StatusEdit[] {
  const rows = stmt(db, "SELECT * FROM status_edits WHERE status_id = ? ORDER BY created_at, id").all(BigInt(statusId)) as Row[];
  return rows.map(rowToStatusEdit);
}
