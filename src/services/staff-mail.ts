import type { App } from "../app.ts";
import type { Id } from "../lib/ids.ts";
import { PERMISSIONS } from "../lib/permissions.ts";
import { enqueueMail } from "../mail/queue.ts";
import { newReportMail, pendingAccountMail } from "../mail/messages.ts";
import { findAccountById } from "../storage/accounts.ts";
import { staffEmailsWithBits } from "../storage/user-email-tokens.ts";
import type { User } from "../storage/users.ts";

// Mail to the staff (Mastodon's AdminMailer), queued in the transaction of the event. Each
// recipient's role must hold the permission (administrators hold them all).

/** A sign-up confirmed its address and now waits for approval: to those who may manage users. */
export function mailPendingAccount(app: App, user: User): void {
  const account = findAccountById(app.db, user.accountId);
  if (!account) return;
  for (const staff of staffEmailsWithBits(app.db, PERMISSIONS.manage_users)) {
    enqueueMail(app, pendingAccountMail(app, staff.email, { accountId: account.id, username: account.username, email: user.email, reason: user.reason }));
  }
}

/** A new report (local or forwarded): to those who may manage reports, the target excepted. */
export function mailNewReport(app: App, r: { id: Id; reporterId: Id; targetId: Id; comment: string }): void {
  const reporter = findAccountById(app.db, r.reporterId);
  const target = findAccountById(app.db, r.targetId);
  if (!reporter || !target) return;
  const handle = (a: { username: string; domain: string | null }) => (a.domain ? `${a.username}@${a.domain}` : a.username);
  for (const staff of staffEmailsWithBits(app.db, PERMISSIONS.manage_reports)) {
    if (staff.accountId === target.id) continue;
    enqueueMail(app, newReportMail(app, staff.email, { reportId: r.id, reporter: handle(reporter), target: handle(target), comment: r.comment }));
  }
}
