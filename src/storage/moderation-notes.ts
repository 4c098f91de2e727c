import { type DB, type Row, stmt, str, num } from "../db/db.ts";
import type { Id } from "../lib/ids.ts";

// Staff notes (migration 0031): on a report (Mastodon's ReportNote) and on an account
// (AccountModerationNote). Both have an author and a subject; the subject column differs.

export interface ModerationNote {
  id: Id;
  /** The report's or the account's id. */
  subjectId: Id;
  /** The author (a staff member's account). */
  accountId: Id;
  content: string;
  createdAt: number;
}

export type NoteKind = "report" | "account";

const TABLES: Record<NoteKind, { table: string; subject: string }> = {
  report: { table: "report_notes", subject: "report_id" },
  account: { table: "account_moderation_notes", subject: "target_account_id" },
};

function rowToNote(r: Row, subject: string): ModerationNote {
  return { id: str(r.id), subjectId: str(r[subject]), accountId: str(r.account_id), content: r.content as string, createdAt: num(r.created_at) };
}

export function insertModerationNote(db: DB, kind: NoteKind, n: ModerationNote): void {
  const { table, subject } = TABLES[kind];
  stmt(db, `INSERT INTO ${table} (id, ${subject}, account_id, content, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?)`).run(
    BigInt(n.id),
    BigInt(n.subjectId),
    BigInt(n.accountId),
    n.content,
    n.createdAt,
    n.createdAt,
  );
}

export function findModerationNote(db: DB, kind: NoteKind, id: Id): ModerationNote | undefined {
  const { table, subject } = TABLES[kind];
  if (!/^[0-9]{1,19}$/.test(id)) return undefined;
  const r = stmt(db, `SELECT * FROM ${table} WHERE id = ?`).get(BigInt(id)) as Row | undefined;
  return r && rowToNote(r, subject);
}

/** Oldest first, as Mastodon's admin pages show them. */
export function listModerationNotes(db: DB, kind: NoteKind, subjectId: Id): ModerationNote[] {
  const { table, subject } = TABLES[kind];
  return (stmt(db, `SELECT * FROM ${table} WHERE ${subject} = ? ORDER BY id`).all(BigInt(subjectId)) as Row[]).map((r) => rowToNote(r, subject));
}

export function deleteModerationNote(db: DB, kind: NoteKind, id: Id): void {
  stmt(db, `DELETE FROM ${TABLES[kind].table} WHERE id = ?`).run(BigInt(id));
}
