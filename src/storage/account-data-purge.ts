import { type DB, type Row, stmt, str } from "../db/db.ts";
import type { Id } from "../lib/ids.ts";
import { adjustAuthorStatusesCount, adjustStatusCounter, decrementBoostersStatusesCount, deleteStatusRow } from "./statuses.ts";

// Removing a suspended account's data (Mastodon's DeleteAccountService with reserve_username
// and reserve_email): batches small enough for one short transaction each. The account row
// (its username and keys) and the user row (its e-mail, disabled) stay.

const B = (id: Id) => BigInt(id);

/**
 * Deletes up to `limit` of the account's statuses with the counters they touch, except those
 * cited by unresolved reports (moderators still need them). Returns how many went.
 */
export function purgeStatusBatch(db: DB, accountId: Id, limit: number): number {
  const rows = stmt(
    db,
    `SELECT id, reblog_of_id, in_reply_to_id, visibility FROM statuses s WHERE account_id = @a
       AND NOT EXISTS (SELECT 1 FROM reports r, json_each(r.status_ids) j
                       WHERE r.target_account_id = @a AND r.action_taken_at IS NULL AND j.value = CAST(s.id AS TEXT))
     LIMIT @limit`,
  ).all({ a: B(accountId), limit: BigInt(limit) }) as Row[];
  for (const r of rows) {
    const id = str(r.id);
    if (r.reblog_of_id !== null) adjustStatusCounter(db, str(r.reblog_of_id), "reblogs_count", -1);
    else {
      decrementBoostersStatusesCount(db, id);
      if (r.in_reply_to_id !== null && (r.visibility === "public" || r.visibility === "unlisted")) {
        adjustStatusCounter(db, str(r.in_reply_to_id), "replies_count", -1);
      }
    }
    deleteStatusRow(db, id);
  }
  if (rows.length) adjustAuthorStatusesCount(db, accountId, -rows.length);
  return rows.length;
}

/** Deletes up to `limit` media rows of the account; returns their files (removed after commit). */
export function purgeMediaBatch(db: DB, accountId: Id, limit: number): { count: number; files: string[] } {
  const rows = stmt(
    db,
    `SELECT id, file, small_file, thumbnail_file FROM media_attachments m WHERE account_id = ?
       AND (status_id IS NULL OR NOT EXISTS (SELECT 1 FROM statuses s WHERE s.id = m.status_id))
     LIMIT ?`,
  ).all(B(accountId), BigInt(limit)) as Row[];
  const files: string[] = [];
  for (const r of rows) {
    stmt(db, "DELETE FROM media_attachments WHERE id = ?").run(r.id);
    for (const f of [r.file, r.small_file, r.thumbnail_file]) if (typeof f === "string") files.push(f);
  }
  return { count: rows.length, files };
}

/** Up to `limit` favourites and follows (both ways) of the account, with their counters. */
export function purgeRelationshipBatch(db: DB, accountId: Id, limit: number): number {
  const a = B(accountId);
  const favs = stmt(db, "SELECT id, status_id FROM favourites WHERE account_id = ? LIMIT ?").all(a, BigInt(limit)) as Row[];
  for (const f of favs) {
    stmt(db, "UPDATE statuses SET favourites_count = max(0, favourites_count - 1) WHERE id = ?").run(f.status_id);
    stmt(db, "DELETE FROM favourites WHERE id = ?").run(f.id);
  }
  const follows = stmt(db, "SELECT id, account_id, target_account_id FROM follows WHERE account_id = @a OR target_account_id = @a LIMIT @limit").all({
    a,
    limit: BigInt(limit),
  }) as Row[];
  for (const f of follows) {
    stmt(db, "UPDATE accounts SET following_count = max(0, following_count - 1) WHERE id = ?").run(f.account_id);
    stmt(db, "UPDATE accounts SET followers_count = max(0, followers_count - 1) WHERE id = ?").run(f.target_account_id);
    stmt(db, "DELETE FROM follows WHERE id = ?").run(f.id);
  }
  return favs.length + follows.length;
}

// The rest has no counters: plain deletes (Mastodon's ASSOCIATIONS_ON_SUSPEND).
const REST = [
  "DELETE FROM bookmarks WHERE account_id = @a",
  "DELETE FROM status_pins WHERE account_id = @a",
  "DELETE FROM follow_requests WHERE account_id = @a OR target_account_id = @a",
  "DELETE FROM blocks WHERE account_id = @a OR target_account_id = @a",
  "DELETE FROM mutes WHERE account_id = @a OR target_account_id = @a",
  "DELETE FROM account_domain_blocks WHERE account_id = @a",
  "DELETE FROM account_notes WHERE account_id = @a",
  "DELETE FROM account_pins WHERE account_id = @a OR target_account_id = @a",
  "DELETE FROM lists WHERE account_id = @a",
  "DELETE FROM list_accounts WHERE account_id = @a",
  "DELETE FROM conversation_mutes WHERE account_id = @a",
  "DELETE FROM account_conversations WHERE account_id = @a",
  "DELETE FROM scheduled_statuses WHERE account_id = @a",
  "DELETE FROM filters WHERE account_id = @a",
  "DELETE FROM featured_tags WHERE account_id = @a",
  "DELETE FROM markers WHERE account_id = @a",
  "DELETE FROM mentions WHERE account_id = @a",
  "DELETE FROM notifications WHERE account_id = @a OR from_account_id = @a",
  "DELETE FROM home_feeds WHERE account_id = @a",
  "DELETE FROM report_notes WHERE account_id = @a",
];

/** The last step: everything without counters, the profile emptied, the login disabled. */
export function purgeRest(db: DB, accountId: Id, now: number): { avatar: string | null; header: string | null } {
  const a = B(accountId);
  for (const sql of REST) stmt(db, sql).run({ a });
  const r = stmt(db, "SELECT avatar_file, header_file FROM accounts WHERE id = ?").get(a) as Row | undefined;
  stmt(
    db,
    `UPDATE accounts SET display_name = '', note = '', note_source = '', fields = '[]', fields_source = '[]', locked = 0,
       memorial = 0, discoverable = 0, indexable = 0, silenced_at = NULL, moved_to_account_id = NULL, also_known_as = '[]',
       avatar_file = NULL, avatar_content_type = NULL, avatar_remote_url = NULL, header_file = NULL,
       header_content_type = NULL, header_remote_url = NULL, statuses_count = 0, followers_count = 0,
       following_count = 0, last_status_at = NULL, updated_at = @now WHERE id = @a`,
  ).run({ a, now });
  stmt(db, "UPDATE users SET disabled = 1, updated_at = ? WHERE account_id = ?").run(now, a);
  stmt(db, "DELETE FROM account_deletion_requests WHERE account_id = ?").run(a);
  return { avatar: (r?.avatar_file as string | null) ?? null, header: (r?.header_file as string | null) ?? null };
}

/** Deletes a pending sign-up outright (account and user, by cascade). */
export function deleteAccountRow(db: DB, accountId: Id): void {
  stmt(db, "DELETE FROM accounts WHERE id = ?").run(B(accountId));
}
