import type { App } from "../app.ts";
import { escapeHtml } from "../lib/text-html.ts";
import type { MailMessage } from "./transport.ts";

// The messages roost sends (Mastodon's UserMailer, AdminMailer): a plain-text part and a
// small HTML part built from the same lines. English only.

type Line = string | { link: string; label: string };

function compose(app: App, to: string, subject: string, lines: Line[]): MailMessage {
  const text = lines.map((l) => (typeof l === "string" ? l : `${l.label}: ${l.link}`)).join("\n\n") + `\n\n-- \n${app.config.title} (${app.baseUrl})\n`;
  const html =
    `<!doctype html><html><body style="font-family:sans-serif;line-height:1.5">` +
    lines.map((l) => (typeof l === "string" ? `<p>${escapeHtml(l)}</p>` : `<p><a href="${escapeHtml(l.link)}">${escapeHtml(l.label)}</a></p>`)).join("") +
    `<p style="color:#666">${escapeHtml(app.config.title)} · <a href="${escapeHtml(app.baseUrl)}">${escapeHtml(app.baseUrl)}</a></p></body></html>`;
  return { to, subject, text, html };
}

/** Sign-up (or resend): the link that confirms the address. */
export function confirmationMail(app: App, to: string, username: string, token: string): MailMessage {
  const link = `${app.baseUrl}/auth/confirmation?confirmation_token=${encodeURIComponent(token)}`;
  return compose(app, to, `${app.config.title}: confirm your e-mail address`, [
    `Hello @${username},`,
    `To finish signing up on ${app.config.title}, confirm that this address is yours:`,
    { link, label: "Confirm my e-mail address" },
    "If you did not sign up, ignore this message: without confirmation the account cannot be used.",
  ]);
}

/** E-mail change: the link that confirms the new address (the same confirmation link as a sign-up's). */
export function reconfirmationMail(app: App, to: string, username: string, token: string): MailMessage {
  const link = `${app.baseUrl}/auth/confirmation?confirmation_token=${encodeURIComponent(token)}`;
  return compose(app, to, `${app.config.title}: confirm your new e-mail address`, [
    `Hello @${username},`,
    `You asked to change the e-mail address of your account on ${app.config.title} to this one. Confirm the change:`,
    { link, label: "Confirm my new e-mail address" },
    "If you did not ask for this, ignore this message: the address of the account stays as it was.",
  ]);
}

/** Forgotten password: a link to the form that sets a new one (valid 6 hours, once). */
export function resetPasswordMail(app: App, to: string, username: string, token: string): MailMessage {
  const link = `${app.baseUrl}/auth/password/edit?reset_password_token=${encodeURIComponent(token)}`;
  return compose(app, to, `${app.config.title}: reset your password`, [
    `Hello @${username},`,
    "Someone asked to reset the password of your account. Choose a new one here (the link works once, within 6 hours):",
    { link, label: "Change my password" },
    "If it was not you, ignore this message: your password stays as it is.",
  ]);
}

/** To each moderator with manage_reports: a new report (AdminMailer#new_report). */
export function newReportMail(app: App, to: string, r: { reportId: string; reporter: string; target: string; comment: string }): MailMessage {
  return compose(app, to, `${app.config.title}: new report for @${r.target}`, [
    `@${r.reporter} reported @${r.target}.`,
    ...(r.comment ? [`Comment: ${r.comment}`] : []),
    { link: `${app.baseUrl}/api/v1/admin/reports/${r.reportId}`, label: `Report #${r.reportId}` },
    `From the command line: roost reports show ${r.reportId}`,
  ]);
}

/** To each moderator with manage_users: a sign-up waits for approval (AdminMailer#new_pending_account). */
export function pendingAccountMail(app: App, to: string, a: { accountId: string; username: string; email: string; reason: string | null }): MailMessage {
  return compose(app, to, `${app.config.title}: new account up for review: @${a.username}`, [
    `@${a.username} (${a.email}) signed up and waits for approval.`,
    ...(a.reason ? [`Reason given: ${a.reason}`] : []),
    `Approve or reject with: roost accounts approve ${a.username} / roost accounts reject ${a.username}`,
    { link: `${app.baseUrl}/api/v1/admin/accounts/${a.accountId}`, label: "The account in the admin API" },
  ]);
}

const WARNING_SUBJECTS: Record<string, string> = {
  none: "You have received a warning",
  disable: "Your account has been frozen",
  sensitive: "Your posts will be marked as sensitive",
  silence: "Your account has been limited",
  suspend: "Your account has been suspended",
  mark_statuses_as_sensitive: "Your posts have been marked as sensitive",
  delete_statuses: "Your posts have been removed",
};

/** To the user: a moderator's action on their account (UserMailer#warning). */
export function warningMail(app: App, to: string, w: { username: string; action: string; text: string }): MailMessage {
  const subject = WARNING_SUBJECTS[w.action] ?? "A moderator took action on your account";
  return compose(app, to, `${app.config.title}: ${subject}`, [
    `Hello @${w.username},`,
    `${subject}.`,
    ...(w.text ? [`Message from the moderators: ${w.text}`] : []),
    `Questions can go to the instance's contact${app.config.contactEmail ? ` (${app.config.contactEmail})` : ""}.`,
  ]);
}

/** The archive the user asked for is ready (UserMailer#backup_ready). */
export function archiveReadyMail(app: App, to: string, username: string): MailMessage {
  return compose(app, to, `${app.config.title}: your archive is ready to download`, [
    `Hello @${username},`,
    "The archive of your posts and media you asked for is ready. It is kept for a week:",
    { link: `${app.baseUrl}/settings/archive`, label: "Download your archive" },
  ]);
}

/** Two-factor recovery codes were regenerated (UserMailer#two_factor_recovery_codes_changed). */
export function recoveryCodesChangedMail(app: App, to: string, username: string): MailMessage {
  return compose(app, to, `${app.config.title}: two-factor recovery codes changed`, [
    `Hello @${username},`,
    "New recovery codes for two-factor authentication were generated for your account, and the old ones no longer work. If you did not do this, change your password and check your sign-in sessions:",
    { link: `${app.baseUrl}/settings/sessions`, label: "Your sessions" },
  ]);
}
