import type { App } from "../app.ts";
import { tx } from "../db/db.ts";
import { forbidden, notFound } from "../errors.ts";
import { exceedsCodePoints } from "../lib/code-points.ts";
import type { Id } from "../lib/ids.ts";
import { Validation } from "../lib/validation.ts";
import { findAccountById } from "../storage/accounts.ts";
import { deleteModerationNote, findModerationNote, insertModerationNote, type ModerationNote, type NoteKind } from "../storage/moderation-notes.ts";
import { findUserByAccountId } from "../storage/users.ts";
import { type Actor, outranks, requireCan, roleOfUser } from "./actor.ts";
import { audit } from "./audit.ts";

// Staff notes on reports and on accounts (Mastodon's ReportNote and AccountModerationNote with
// their policies): anyone who may manage reports writes them; a note is deleted by its author,
// or by someone who may manage reports and outranks the author.

/** Mastodon's CONTENT_SIZE_LIMIT of both note models. */
export const NOTE_MAX = 2000;

const TARGET_TYPE: Record<NoteKind, string> = { report: "ReportNote", account: "AccountModerationNote" };

export function validateNoteContent(content: string): string {
  const text = content.trim();
  const v = new Validation();
  if (text === "") v.add("content", "ERR_BLANK", "can't be blank");
  else if (exceedsCodePoints(text, NOTE_MAX)) v.add("content", "ERR_TOO_LONG", `is too long (maximum is ${NOTE_MAX} characters)`);
  v.throwIfAny();
  return text;
}

/**
 * Adds a note; call inside the caller's transaction when the note goes with another change
 * (a report resolved with a note), else it opens its own.
 */
export function addNote(app: App, actor: Actor, kind: NoteKind, subjectId: Id, content: string): ModerationNote {
  requireCan(actor, "manage_reports");
  const text = validateNoteContent(content);
  const note: ModerationNote = { id: app.ids.next(), subjectId, accountId: actor.account.id, content: text, createdAt: app.now() };
  const write = () => {
    insertModerationNote(app.db, kind, note);
    audit(app, actor, "create", { type: TARGET_TYPE[kind], id: note.id, name: subjectId }, { content: [null, text] });
  };
  if (app.db.inTransaction) write();
  else tx(app.db, write);
  return note;
}

/** Deletes a note of `kind` (404 for an unknown id or one of the other kind). */
export function deleteNote(app: App, actor: Actor, kind: NoteKind, noteId: string): ModerationNote {
  const note = findModerationNote(app.db, kind, noteId);
  if (!note) throw notFound();
  const own = note.accountId === actor.account.id;
  if (!own) {
    requireCan(actor, "manage_reports");
    const author = findAccountById(app.db, note.accountId);
    if (!outranks(actor, roleOfUser(app, author && findUserByAccountId(app.db, author.id)))) throw forbidden();
  }
  tx(app.db, () => {
    deleteModerationNote(app.db, kind, note.id);
    audit(app, actor, "destroy", { type: TARGET_TYPE[kind], id: note.id, name: note.subjectId }, { content: [note.content, null] });
  });
  return note;
}
