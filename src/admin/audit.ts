import type { App } from "../app.ts";
import type { Id } from "../lib/ids.ts";
import { type ActionLog, type ActionLogFilter, insertActionLog, listActionLogActors, listActionLogKinds, listActionLogs } from "../storage/admin-action-logs.ts";
import { findAccountById } from "../storage/accounts.ts";
import { findUserByAccountId } from "../storage/users.ts";
import { type Actor, requireCan } from "./actor.ts";

// The audit log (Mastodon's Admin::ActionLog + AccountableConcern#log_action): one row per
// admin or moderator action, written in the action's own transaction, never edited (the
// table's triggers refuse it). See src/admin/DESIGN.md.

/** What an action touched: Mastodon's target_type names (Account, User, Report, UserRole ...). */
export interface AuditTarget {
  type: string;
  id: Id | null;
  /** How a reader recognises it later, when the row may be gone: a handle, a role's name. */
  name?: string | null;
}

/** Field → [before, after], only the fields that changed. */
export type Changes = Record<string, [unknown, unknown]>;

/**
 * The fields of `after` whose value differs from `before` (compared as JSON), as
 * {field: [before, after]}. Pass the record before and after the change, or just the
 * fields of interest.
 */
export function changesOf(before: object | null | undefined, after: object | null | undefined): Changes {
  const b = (before ?? {}) as Record<string, unknown>;
  const a = (after ?? {}) as Record<string, unknown>;
  const out: Changes = {};
  for (const k of new Set([...Object.keys(b), ...Object.keys(a)])) {
    const x = b[k] ?? null;
    const y = a[k] ?? null;
    if (JSON.stringify(x) !== JSON.stringify(y)) out[k] = [x, y];
  }
  return out;
}

/**
 * Records an action. `actor` null is the server itself (a scheduled job). Must run inside
 * the transaction that makes the change, so the two commit or roll back together: it throws
 * otherwise, which turns a forgotten transaction into a failing test instead of a lost entry.
 */
export function audit(app: App, actor: Actor | null, action: string, target: AuditTarget, changes: Changes = {}): void {
  if (!app.db.inTransaction) throw new Error(`audit(${action} ${target.type}) outside the action's transaction`);
  insertActionLog(app.db, {
    id: app.ids.next(),
    accountId: actor?.account.id ?? null,
    actorName: actor ? actor.account.username : "system",
    source: actor?.source ?? "job",
    action,
    targetType: target.type,
    targetId: target.id,
    humanIdentifier: target.name ?? null,
    changes,
    createdAt: app.now(),
  });
}

export type { ActionLog, ActionLogFilter } from "../storage/admin-action-logs.ts";

/** Reading the log needs view_audit_log (Mastodon's AuditLogPolicy). Newest first. */
export function readAuditLog(app: App, actor: Actor, filter: ActionLogFilter): ActionLog[] {
  requireCan(actor, "view_audit_log");
  return listActionLogs(app.db, filter);
}

/** The choices of the audit page's filters: the staff who have entries and the kinds of entry present. */
export function auditLogFacets(app: App, actor: Actor): { actors: { accountId: Id; name: string }[]; kinds: { action: string; targetType: string }[] } {
  requireCan(actor, "view_audit_log");
  return { actors: listActionLogActors(app.db), kinds: listActionLogKinds(app.db) };
}

/**
 * The target_account_id filter (Mastodon's ActionLogFilter: the account or its user, found or
 * merely initialised): an unknown or deleted account still matches the entries naming its id.
 * `name` is its handle when it exists.
 */
export function auditTargetAccount(app: App, actor: Actor, accountId: Id): { accountId: Id; userId: Id | null; name: string | null } {
  requireCan(actor, "view_audit_log");
  const account = findAccountById(app.db, accountId);
  const user = account && account.domain === null ? findUserByAccountId(app.db, accountId) : undefined;
  return { accountId, userId: user?.id ?? null, name: account ? (account.domain === null ? account.username : `${account.username}@${account.domain}`) : null };
}
