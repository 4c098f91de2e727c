import type { App } from "../app.ts";
import { tx } from "../db/db.ts";
import { forbidden, notFound, unprocessable } from "../errors.ts";
import { isoTime } from "../lib/iso-time.ts";
import { exceedsCodePoints } from "../lib/code-points.ts";
import { type Account, findAccountById, updateAccount } from "../storage/accounts.ts";
import { type AccountWarning, findWarningPreset, insertAccountWarning, type WarningAction } from "../storage/account-warnings.ts";
import { unresolvedReportIdsAbout } from "../storage/report-moderation.ts";
import { updateUser } from "../storage/users.ts";
import { notify } from "../services/notifications.ts";
import { type Actor, can, outranks, requireCan } from "./actor.ts";
import { userAndRole } from "./accounts.ts";
import { audit } from "./audit.ts";
import { requireReport, resolveReportsInTx } from "./reports.ts";
import { applySuspension } from "./suspension.ts";
import { enqueueMail } from "../mail/queue.ts";
import { warningMail } from "../mail/messages.ts";

// POST /api/v1/admin/accounts/:id/action (Mastodon's Admin::AccountAction): one of none
// (a warning), sensitive, disable, silence, suspend; it records an AccountWarning, resolves
// the report it came from (all open reports about the account for anything but `none`) and,
// unless told not to, tells a local user through a moderation_warning notification.

/** roost's bound on a warning's text (Mastodon sets none; a report comment from afar gets 5000). */
export const WARNING_TEXT_MAX = 5000;

export const ACTION_TYPES = ["none", "sensitive", "disable", "silence", "suspend"] as const;
export type ActionType = (typeof ACTION_TYPES)[number];

export interface AccountActionInput {
  type: string | undefined;
  reportId?: string;
  warningPresetId?: string;
  text?: string;
  /** Default true. */
  sendEmailNotification?: boolean;
}

const time = (ms: number | null) => (ms === null ? null : isoTime(ms));

export function performAccountAction(app: App, actor: Actor, target: Account, input: AccountActionInput): AccountWarning {
  requireCan(actor, "manage_users");
  const type = input.type?.trim() ?? "";
  if (!(ACTION_TYPES as readonly string[]).includes(type)) {
    throw unprocessable(type === "" ? "Validation failed: Type can't be blank, Type is not included in the list" : "Validation failed: Type is not included in the list");
  }
  const { user, role } = userAndRole(app, target);
  // Every type needs a role above the target's (AccountPolicy#warn?, silence? ...).
  if (!can(actor, "manage_users", "manage_reports") || !outranks(actor, role)) throw forbidden();
  if (type === "disable" && !user) throw forbidden();
  if (type === "suspend" && target.domain === null && !user) throw forbidden();
  if (input.text !== undefined && exceedsCodePoints(input.text, WARNING_TEXT_MAX)) {
    throw unprocessable(`Validation failed: Text is too long (maximum is ${WARNING_TEXT_MAX} characters)`);
  }
  const report = input.reportId !== undefined && input.reportId !== "" ? requireReport(app, input.reportId) : undefined;
  let presetText: string | undefined;
  if (input.warningPresetId !== undefined && input.warningPresetId !== "") {
    const preset = findWarningPreset(app.db, input.warningPresetId);
    if (!preset) throw notFound();
    presetText = preset.text;
  }
  const text = [presetText, input.text].filter((t): t is string => typeof t === "string" && t !== "").join("\n\n");
  const now = app.now();

  const warning = tx(app.db, () => {
    const current = findAccountById(app.db, target.id)!;
    const account = { type: "Account", id: target.id, name: target.domain ? `${target.username}@${target.domain}` : target.username };
    switch (type as ActionType) {
      case "disable":
        updateUser(app.db, user!.id, { disabled: true, updatedAt: now });
        audit(app, actor, "disable", { type: "User", id: user!.id, name: target.username }, user!.disabled ? {} : { disabled: [false, true] });
        break;
      case "sensitive":
        updateAccount(app.db, target.id, { sensitizedAt: current.sensitizedAt ?? now, updatedAt: now });
        audit(app, actor, "sensitive", account, current.sensitizedAt ? {} : { sensitized_at: [null, time(now)] });
        break;
      case "silence":
        updateAccount(app.db, target.id, { silencedAt: current.silencedAt ?? now, updatedAt: now });
        audit(app, actor, "silence", account, current.silencedAt ? {} : { silenced_at: [null, time(now)] });
        break;
      case "suspend":
        applySuspension(app, current);
        audit(app, actor, "suspend", account, current.suspendedAt ? { suspension_origin: [current.suspensionOrigin, "local"] } : { suspended_at: [null, time(now)], suspension_origin: [null, "local"] });
        break;
      case "none":
        break;
    }
    const w: AccountWarning = {
      id: app.ids.next(),
      accountId: actor.account.id,
      targetAccountId: target.id,
      action: type as WarningAction,
      text,
      reportId: report?.id ?? null,
      statusIds: report && report.statusIds.length ? report.statusIds : null,
      createdAt: now,
    };
    insertAccountWarning(app.db, w);
    // "A log entry is only interesting if the warning contains custom text" (Mastodon).
    if (type === "none" && text !== "") audit(app, actor, "create", { type: "AccountWarning", id: w.id, name: account.name }, { text: [null, text] });
    const reports = type === "none" ? (report ? [report.id] : []) : unresolvedReportIdsAbout(app.db, target.id);
    if (report && !reports.includes(report.id)) reports.push(report.id);
    resolveReportsInTx(app, actor, reports);
    if (input.sendEmailNotification !== false && target.domain === null) {
      notify(app, { type: "moderation_warning", recipientId: target.id, fromAccountId: target.id, accountWarningId: w.id });
      // UserMailer#warning, queued with the action (sent by the mail.send job).
      if (user) enqueueMail(app, warningMail(app, user.email, { username: target.username, action: type, text }));
    }
    return w;
  });
  return warning;
}
