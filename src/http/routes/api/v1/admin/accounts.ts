// https://docs.joinmastodon.org/methods/admin/accounts/ — v1 and v2 listings, show, action,
// approve, reject, enable, unsilence, unsuspend, unsensitive, delete (endpoints-admin.md §1).
import { getRouterParam, type H3Event } from "h3";
import type { App } from "../../../../../app.ts";
import type { Router } from "../../../../router.ts";
import type { Actor } from "../../../../../admin/actor.ts";
import { performAccountAction } from "../../../../../admin/account-actions.ts";
import {
  type AccountStatusFilter,
  type AdminAccountFilter,
  approveAccount,
  deleteAccountData,
  enableAccount,
  listAdminAccountIds,
  rejectAccount,
  requireAdminAccount,
  showAdminAccount,
  unsensitizeAccount,
  unsilenceAccount,
  unsuspendAccount,
} from "../../../../../admin/accounts.ts";
import { staffRoleIds } from "../../../../../admin/account-filters.ts";
import { badRequest } from "../../../../../errors.ts";
import { ipKeyRange } from "../../../../../lib/ip-keys.ts";
import { toApiAdminAccount, toApiAdminAccountsJson } from "../../../../../serializers/admin-account.ts";
import { jsonText } from "../../../../headers.ts";
import { adminScopes, requirePermission } from "../../../../admin-auth.ts";
import { pageParams, setLinkHeader } from "../../../../pagination.ts";
import { type Params, readAppParams } from "../../../../params.ts";

const READ = adminScopes("read", "accounts");
const WRITE = adminScopes("write", "accounts");
const STATUSES: AccountStatusFilter[] = ["active", "pending", "disabled", "silenced", "suspended", "sensitized"];
const V1_KEYS = ["local", "remote", "by_domain", "active", "pending", "disabled", "sensitized", "silenced", "suspended", "username", "display_name", "email", "ip", "staff"];
const V2_KEYS = ["origin", "status", "permissions", "username", "by_domain", "display_name", "email", "ip", "invited_by", "role_ids"];

/** Rails' `present?`: the key was sent with a non-blank value. */
const present = (p: Params, k: string) => (p.str(k) ?? "").trim() !== "";
const text = (p: Params, k: string) => (present(p, k) ? p.str(k)!.trim() : undefined);

/** The filters shared by v1 and v2 (prefixes and the address range). */
function common(p: Params): Partial<AdminAccountFilter> {
  const ip = text(p, "ip");
  return {
    byDomain: text(p, "by_domain"),
    username: text(p, "username")?.replace(/^@/, ""),
    displayName: text(p, "display_name"),
    email: text(p, "email"),
    ...(ip !== undefined ? { ipRange: ipKeyRange(ip) } : {}),
  };
}

/** v1: local and active unless told otherwise; a status flag or `staff` switches a filter on. */
function v1Filter(app: App, p: Params): Partial<AdminAccountFilter> {
  const f: Partial<AdminAccountFilter> = { origin: present(p, "remote") ? "remote" : "local", status: "active", ...common(p) };
  // `sensitized` is accepted and has no effect in Mastodon's v1 (endpoints-admin.md).
  for (const s of ["active", "pending", "disabled", "silenced", "suspended"] as const) if (present(p, s)) f.status = s;
  if (present(p, "staff")) f.roleIds = staffRoleIds(app);
  return f;
}

/** v2: no defaults; an unknown origin or status is a 400. */
function v2Filter(app: App, p: Params): Partial<AdminAccountFilter> {
  const f: Partial<AdminAccountFilter> = common(p);
  const origin = text(p, "origin");
  if (origin !== undefined) {
    if (origin !== "local" && origin !== "remote") throw badRequest(`Unknown origin: ${origin}`);
    f.origin = origin;
  }
  const status = text(p, "status");
  if (status !== undefined) {
    if (!STATUSES.includes(status as AccountStatusFilter)) throw badRequest(`Unknown status: ${status}`);
    f.status = status as AccountStatusFilter;
  }
  const roleIds = p.strArray("role_ids", { allowScalar: true, max: 100 })?.map((s) => s.trim()).filter((s) => s !== "");
  if (roleIds?.length) f.roleIds = roleIds;
  if (p.str("permissions") === "staff") f.roleIds = staffRoleIds(app);
  const invitedBy = text(p, "invited_by");
  if (invitedBy !== undefined) f.invitedBy = invitedBy;
  return f;
}

async function list(app: App, event: H3Event, version: 1 | 2) {
  const p = await readAppParams(app, event);
  const actor = requirePermission(app, event, READ, "manage_users");
  const k = pageParams(p, 100, 200);
  const filter = version === 1 ? v1Filter(app, p) : v2Filter(app, p);
  const ids = listAdminAccountIds(app, actor, { ...filter, ...k });
  setLinkHeader(app, event, p, { cursors: ids, limit: k.limit, keep: version === 1 ? V1_KEYS : V2_KEYS });
  return jsonText(event, toApiAdminAccountsJson(app, ids));
}

export function registerAdminAccountsRoutes(app: App, r: Router): void {
  r.get("/api/v1/admin/accounts", (event) => list(app, event, 1));
  r.get("/api/v2/admin/accounts", (event) => list(app, event, 2));

  r.get("/api/v1/admin/accounts/:id", (event) => {
    const actor = requirePermission(app, event, READ, "manage_users");
    return toApiAdminAccount(app, showAdminAccount(app, actor, getRouterParam(event, "id")));
  });

  /** A write route on one account: params read, scope and manage_users checked, account found. */
  const write = (path: string, fn: (actor: Actor, p: Params, id: string | undefined) => unknown, ...perms: ("manage_users" | "delete_user_data")[]) =>
    r.post(`/api/v1/admin/accounts/:id${path}`, async (event) => {
      const p = await readAppParams(app, event);
      const actor = requirePermission(app, event, WRITE, ...perms);
      return fn(actor, p, getRouterParam(event, "id"));
    });

  write("/action", (actor, p, id) => {
    performAccountAction(app, actor, requireAdminAccount(app, id), {
      type: p.str("type"),
      reportId: p.str("report_id")?.trim(),
      warningPresetId: p.str("warning_preset_id")?.trim(),
      text: p.str("text"),
      sendEmailNotification: p.bool("send_email_notification"),
    });
    return {};
  }, "manage_users");
  write("/approve", (actor, _p, id) => toApiAdminAccount(app, approveAccount(app, actor, requireAdminAccount(app, id))), "manage_users");
  write("/reject", (actor, _p, id) => {
    rejectAccount(app, actor, requireAdminAccount(app, id));
    return {};
  }, "manage_users");
  write("/enable", (actor, _p, id) => toApiAdminAccount(app, enableAccount(app, actor, requireAdminAccount(app, id))), "manage_users");
  write("/unsilence", (actor, _p, id) => toApiAdminAccount(app, unsilenceAccount(app, actor, requireAdminAccount(app, id))), "manage_users");
  write("/unsuspend", (actor, _p, id) => toApiAdminAccount(app, unsuspendAccount(app, actor, requireAdminAccount(app, id))), "manage_users");
  write("/unsensitive", (actor, _p, id) => toApiAdminAccount(app, unsensitizeAccount(app, actor, requireAdminAccount(app, id))), "manage_users");

  r.delete("/api/v1/admin/accounts/:id", async (event) => {
    await readAppParams(app, event);
    const actor = requirePermission(app, event, WRITE, "delete_user_data");
    deleteAccountData(app, actor, requireAdminAccount(app, getRouterParam(event, "id")));
    return {};
  });
}
