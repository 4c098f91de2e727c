import type { App } from "../app.ts";
import { unprocessable } from "../errors.ts";
import { type Id, parseId } from "../lib/ids.ts";
import { exceedsCodePoints } from "../lib/code-points.ts";
import { findAccountsByIds, type Account } from "../storage/accounts.ts";
import { deleteAccountNote, upsertAccountNote } from "../storage/account-notes.ts";
import { familiarFollowersOf } from "../storage/relationships.ts";
import { findVisibleAccounts } from "./account-lookup.ts";

// Use cases around the Relationship entity that are not follows, blocks or mutes.

const NOTE_MAX = 2000;

/**
 * The `id[]` of relationships and familiar_followers: Mastodon reads the raw param, so a bare
 * scalar works too; malformed ids are skipped, duplicates collapse, request order is kept.
 */
export function parseAccountIds(raw: string[] | undefined): Id[] {
  const out: Id[] = [];
  for (const v of raw ?? []) {
    const id = parseId(v);
    if (id && !out.includes(id)) out.push(id);
  }
  return out;
}

/** Accounts for GET /api/v1/accounts/relationships: existing, visible, suspended only on request. */
export function relationshipTargets(app: App, ids: Id[], withSuspended: boolean): Id[] {
  return findVisibleAccounts(app, ids)
    .filter((a) => withSuspended || a.suspendedAt === null)
    .map((a) => a.id);
}

/** POST /api/v1/accounts/:id/note: a blank comment deletes the note. */
export function setAccountNote(app: App, viewer: Account, target: Account, comment: string | undefined): void {
  if (comment === undefined || comment.trim() === "") {
    deleteAccountNote(app.db, viewer.id, target.id);
    return;
  }
  // Rails counts characters (code points), not UTF-16 units.
  if (exceedsCodePoints(comment, NOTE_MAX)) {
    throw unprocessable(`Validation failed: Comment is too long (maximum is ${NOTE_MAX} characters)`);
  }
  upsertAccountNote(app.db, viewer.id, target.id, comment, app.now());
}

export interface FamiliarFollowers {
  id: Id;
  accounts: Account[];
}

/**
 * GET /api/v1/accounts/familiar_followers: one entry per existing, non-suspended id; no
 * accounts for one that hides its collections.
 */
export function familiarFollowers(app: App, viewerId: Id, ids: Id[]): FamiliarFollowers[] {
  const targets = findVisibleAccounts(app, ids).filter((a) => a.suspendedAt === null);
  const open = targets.filter((a) => !a.hideCollections).map((a) => a.id);
  const map = familiarFollowersOf(app.db, viewerId, open);
  const accounts = findAccountsByIds(app.db, [...map.values()].flat());
  return targets.map((t) => ({
    id: t.id,
    accounts: (map.get(t.id) ?? []).map((id) => accounts.get(id)).filter((a): a is Account => a !== undefined),
  }));
}

/** The accounts of a keyset page, in page order, with the hidden cursors for the Link header. */
export function accountsOfPage(app: App, rows: { cursor: Id; accountId: Id }[]): { accounts: Account[]; cursors: Id[] } {
  const found = findAccountsByIds(app.db, rows.map((r) => r.accountId));
  const accounts: Account[] = [];
  const cursors: Id[] = [];
  for (const r of rows) {
    const a = found.get(r.accountId);
    if (!a) continue;
    accounts.push(a);
    cursors.push(r.cursor);
  }
  return { accounts, cursors };
}
