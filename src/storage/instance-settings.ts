import type { App } from "../app.ts";
import { getSetting } from "./settings.ts";

// The instance settings an admin changes at run time (`roost settings set`): stored in the
// settings table, with the config file's value as the default until one is set. Read from the
// database every time (a point lookup on a tiny table), so a change made by the CLI in another
// process applies to a running server at once.

export type RegistrationsMode = "open" | "approval" | "closed";

/** Setting keys in the settings table. */
export const SETTING_KEYS = {
  registrations: "admin.registrations",
  invites: "admin.invites_enabled",
  inviteMinRole: "admin.invite_min_role_id",
  limitedFederation: "admin.limited_federation",
  trendsReview: "admin.trends_require_review",
} as const;

const isMode = (v: unknown): v is RegistrationsMode => v === "open" || v === "approval" || v === "closed";

export function registrationsMode(app: App): RegistrationsMode {
  const v = getSetting(app.db, SETTING_KEYS.registrations);
  return isMode(v) ? v : app.config.registrations;
}

function flag(app: App, key: string, def: boolean): boolean {
  const v = getSetting(app.db, key);
  return typeof v === "boolean" ? v : def;
}

/** Whether users may create invites at all (on by default, as in Mastodon). */
export function invitesEnabled(app: App): boolean {
  return flag(app, SETTING_KEYS.invites, true);
}

/**
 * The lowest role that may create invites (Mastodon's old `min_invite_role`), by id; null is
 * the everyone role, i.e. any user whose role has invite_users.
 */
export function inviteMinRoleId(app: App): string | null {
  const v = getSetting(app.db, SETTING_KEYS.inviteMinRole);
  return typeof v === "string" ? v : null;
}

/** Mastodon's LIMITED_FEDERATION_MODE: federate only with allowed domains. */
export function limitedFederation(app: App): boolean {
  return flag(app, SETTING_KEYS.limitedFederation, app.config.limitedFederation);
}

/** Trending tags, links and posts need a moderator's review before they show. */
export function trendsRequireReview(app: App): boolean {
  return flag(app, SETTING_KEYS.trendsReview, app.config.trendsRequireReview);
}
