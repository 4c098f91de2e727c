import type { App } from "../app.ts";
import { isoTime } from "../lib/iso-time.ts";
import { findAccountsByIds } from "../storage/accounts.ts";
import { listModerationNotes } from "../storage/moderation-notes.ts";
import type { Report } from "../storage/reports.ts";

// What the operator's CLI shows of reports (roost reports list/show).

export function reportRecord(app: App, r: Report, withNotes: boolean): Record<string, unknown> {
  const notes = withNotes ? listModerationNotes(app.db, "report", r.id) : [];
  const ids = [r.accountId, r.targetAccountId, r.assignedAccountId, r.actionTakenByAccountId, ...notes.map((n) => n.accountId)].filter((x): x is string => x !== null);
  const accounts = findAccountsByIds(app.db, ids);
  const name = (id: string | null) => {
    const a = id ? accounts.get(id) : undefined;
    return a ? (a.domain ? `${a.username}@${a.domain}` : a.username) : null;
  };
  const out: Record<string, unknown> = {
    id: r.id,
    state: r.actionTakenAt === null ? "unresolved" : "resolved",
    category: r.category,
    reporter: name(r.accountId),
    target: name(r.targetAccountId),
    assigned: name(r.assignedAccountId),
    resolved_by: name(r.actionTakenByAccountId),
    resolved_at: r.actionTakenAt === null ? null : isoTime(r.actionTakenAt),
    created_at: isoTime(r.createdAt),
    comment: r.comment,
    status_ids: r.statusIds,
    rule_ids: r.ruleIds,
  };
  if (withNotes) {
    out.notes = notes.map((n) => ({ id: n.id, by: name(n.accountId) ?? n.accountId, at: isoTime(n.createdAt), content: n.content }));
  }
  return out;
}
