import type { App } from "../app.ts";
import { tx } from "../db/db.ts";
import { unprocessable } from "../errors.ts";
import { EVERYONE_ROLE_ID } from "../lib/permissions.ts";
import {
  inviteMinRoleId,
  invitesEnabled,
  limitedFederation,
  registrationsMode,
  type RegistrationsMode,
  SETTING_KEYS,
  trendsRequireReview,
} from "../storage/instance-settings.ts";
import { getSetting, setSetting } from "../storage/settings.ts";
import { findRoleById } from "../storage/user-roles.ts";
import { type Actor, requireCan } from "./actor.ts";
import { audit } from "./audit.ts";
import { requireRole } from "./roles.ts";

// The instance settings an admin changes at run time (`roost settings get|set`; Mastodon's
// Admin::SettingsController, manage_settings). The config file gives the defaults; a value set
// here is stored in the settings table and wins (storage/instance-settings.ts reads it).

export interface SettingView {
  key: string;
  value: string;
  /** "database" once set here, else "config" (or "default" for those without a config key). */
  source: "database" | "config" | "default";
  description: string;
}

interface SettingSpec {
  stored: string;
  description: string;
  values: string;
  read(app: App): string;
  /** The value to store, or throws 422. */
  parse(app: App, raw: string): unknown;
}

function bool(raw: string): boolean {
  if (/^(on|true|yes|1)$/i.test(raw)) return true;
  if (/^(off|false|no|0)$/i.test(raw)) return false;
  throw unprocessable(`Validation failed: expected on or off, got ${JSON.stringify(raw.slice(0, 64))}`);
}
const onOff = (b: boolean) => (b ? "on" : "off");

const SPECS: Record<string, SettingSpec> = {
  registrations: {
    stored: SETTING_KEYS.registrations,
    description: "who may sign up: open, approval (a moderator approves each sign-up) or closed (invites only)",
    values: "open|approval|closed",
    read: (app) => registrationsMode(app),
    parse: (_app, raw) => {
      const v = raw.trim().toLowerCase();
      if (v !== "open" && v !== "approval" && v !== "closed") throw unprocessable(`Validation failed: registrations must be open, approval or closed`);
      return v;
    },
  },
  approval: {
    stored: SETTING_KEYS.registrations,
    description: "whether sign-ups need approval (on: registrations approval, off: open)",
    values: "on|off",
    read: (app) => onOff(registrationsMode(app) === "approval"),
    parse: (app, raw) => {
      const on = bool(raw);
      const mode: RegistrationsMode = registrationsMode(app);
      if (mode === "closed") throw unprocessable("Validation failed: registrations are closed; set registrations to open or approval instead");
      return on ? "approval" : "open";
    },
  },
  invites: {
    stored: SETTING_KEYS.invites,
    description: "whether users may create invite links",
    values: "on|off",
    read: (app) => onOff(invitesEnabled(app)),
    parse: (_app, raw) => bool(raw),
  },
  "invites-min-role": {
    stored: SETTING_KEYS.inviteMinRole,
    description: "the lowest role that may create invites (everyone, moderator, admin, owner or a role's name or id)",
    values: "ROLE",
    read: (app) => {
      const id = inviteMinRoleId(app);
      const role = id === null ? undefined : findRoleById(app.db, id);
      return role ? role.name || "everyone" : "everyone";
    },
    parse: (app, raw) => {
      const role = requireRole(app, raw);
      return role.id === EVERYONE_ROLE_ID ? null : role.id;
    },
  },
  "limited-federation": {
    stored: SETTING_KEYS.limitedFederation,
    description: "federate only with the domains on the allow-list (roost domains allow)",
    values: "on|off",
    read: (app) => onOff(limitedFederation(app)),
    parse: (_app, raw) => bool(raw),
  },
  "trends-review": {
    stored: SETTING_KEYS.trendsReview,
    description: "trending tags, links and posts show only once a moderator reviewed them",
    values: "on|off",
    read: (app) => onOff(trendsRequireReview(app)),
    parse: (_app, raw) => bool(raw),
  },
};

export const SETTING_NAMES = Object.keys(SPECS);

function requireSpec(key: string): SettingSpec {
  const spec = Object.hasOwn(SPECS, key) ? SPECS[key] : undefined;
  if (!spec) throw unprocessable(`Unknown setting: ${key.slice(0, 64)} (one of ${SETTING_NAMES.join(", ")})`);
  return spec;
}

function view(app: App, key: string, spec: SettingSpec): SettingView {
  const stored = getSetting(app.db, spec.stored) !== undefined;
  const fromConfig = spec.stored === SETTING_KEYS.registrations || spec.stored === SETTING_KEYS.limitedFederation || spec.stored === SETTING_KEYS.trendsReview;
  return { key, value: spec.read(app), source: stored ? "database" : fromConfig ? "config" : "default", description: spec.description };
}

/** Every setting (or one), as the CLI prints them. Reading needs manage_settings too. */
export function readSettings(app: App, actor: Actor, key?: string): SettingView[] {
  requireCan(actor, "manage_settings");
  if (key !== undefined) return [view(app, key, requireSpec(key))];
  return SETTING_NAMES.map((k) => view(app, k, SPECS[k]));
}

/** Changes a setting; the audit log records the value before and after. */
export function changeSetting(app: App, actor: Actor, key: string, raw: string): SettingView {
  requireCan(actor, "manage_settings");
  const spec = requireSpec(key);
  const value = spec.parse(app, raw);
  const before = spec.read(app);
  tx(app.db, () => {
    setSetting(app.db, spec.stored, value);
    const after = spec.read(app);
    if (after !== before) audit(app, actor, "update", { type: "Setting", id: null, name: key }, { [key]: [before, after] });
  });
  return view(app, key, spec);
}
