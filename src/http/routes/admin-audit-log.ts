// The audit log page (issue 13 part 4), Mastodon's /admin/action_logs (Admin::ActionLogsController,
// filters account_id, action_type and target_account_id as in Admin::ActionLogFilter): staff with view_audit_log,
// signed in through the web session; others are sent to sign in, or refused (403). Read-only:
// the page has no form that changes anything, and the table refuses edits anyway.
import type { App } from "../../app.ts";
import type { Router } from "../router.ts";
import { auditLogFacets, auditTargetAccount, readAuditLog } from "../../admin/audit.ts";
import { can, makeActor } from "../../admin/actor.ts";
import { parseId } from "../../lib/ids.ts";
import { currentSession } from "../../services/web-sessions.ts";
import { sessionCookieValue } from "../cookies.ts";
import { actionTypeKey, adminAuditLogPage, AUDIT_PAGE_PATH } from "../html/admin-audit-log-page.ts";
import { htmlPage, messagePage, newNonce, redirectTo } from "../html/layout.ts";
import { signInLocation } from "./oauth/sessions.ts";

/** Entries per page. */
export const AUDIT_PAGE_SIZE = 40;

export function registerAdminAuditLogRoutes(app: App, r: Router): void {
  // The name the issue uses; Mastodon's path is /admin/action_logs.
  r.get("/admin/audit_log", async (event) => redirectTo(event, `${AUDIT_PAGE_PATH}${event.url.search}`));

  r.get(AUDIT_PAGE_PATH, async (event) => {
    const browser = currentSession(app, sessionCookieValue(event));
    if (!browser) return redirectTo(event, signInLocation(`${AUDIT_PAGE_PATH}${event.url.search}`));
    const actor = makeActor(app, browser.user, browser.account, "api");
    if (!can(actor, "view_audit_log")) return messagePage(event, 403, "Not allowed", "Your role does not give access to the audit log.");

    const q = event.url.searchParams;
    const text = (name: string) => (q.get(name) ?? "").trim();
    const accountId = text("account_id") === "" ? undefined : parseId(text("account_id"));
    const maxId = text("max_id") === "" ? undefined : parseId(text("max_id"));
    const targetAccountId = text("target_account_id") === "" ? undefined : parseId(text("target_account_id"));
    if (accountId === undefined && text("account_id") !== "") return messagePage(event, 400, "Bad request", "account_id is not an id.");
    if (targetAccountId === undefined && text("target_account_id") !== "") return messagePage(event, 400, "Bad request", "target_account_id is not an id.");
    if (maxId === undefined && text("max_id") !== "") return messagePage(event, 400, "Bad request", "max_id is not an id.");

    const facets = auditLogFacets(app, actor);
    const target = targetAccountId === undefined ? undefined : auditTargetAccount(app, actor, targetAccountId);
    const actionType = text("action_type").slice(0, 100);
    const kind = actionType === "" ? undefined : facets.kinds.find((k) => actionTypeKey(k) === actionType);
    // An action type nobody has taken yet matches no entry (rather than every entry).
    const entries =
      actionType !== "" && !kind
        ? []
        : readAuditLog(app, actor, { accountId, maxId, action: kind?.action, targetType: kind?.targetType, targetAccount: target, limit: AUDIT_PAGE_SIZE + 1 });
    const more = entries.length > AUDIT_PAGE_SIZE;
    const nonce = newNonce();
    const html = adminAuditLogPage({
      nonce,
      instanceTitle: app.config.title,
      handle: `@${browser.account.username}@${app.config.domain}`,
      entries: entries.slice(0, AUDIT_PAGE_SIZE),
      actors: facets.actors,
      kinds: facets.kinds,
      filter: { accountId, actionType, maxId, target },
      nextMaxId: more ? entries[AUDIT_PAGE_SIZE - 1].id : null,
      canViewDashboard: can(actor, "view_dashboard"),
    });
    return htmlPage(event, 200, html, nonce);
  });
}
