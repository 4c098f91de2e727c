import type { App } from "../app.ts";
import { tx } from "../db/db.ts";
import { notFound } from "../errors.ts";
import { Validation } from "../lib/validation.ts";
import { deleteWarningPreset, findWarningPreset, insertWarningPreset, listWarningPresets, type WarningPreset } from "../storage/account-warnings.ts";
import { type Actor, requireCan } from "./actor.ts";
import { audit } from "./audit.ts";

// Warning presets (Mastodon's AccountWarningPreset, managed with manage_settings): texts a
// moderator picks with `warning_preset_id` when acting on an account.

export function listPresets(app: App, actor: Actor): WarningPreset[] {
  requireCan(actor, "manage_users", "manage_reports", "manage_settings");
  return listWarningPresets(app.db);
}

export function createPreset(app: App, actor: Actor, input: { title?: string; text: string }): WarningPreset {
  requireCan(actor, "manage_settings");
  const text = input.text.trim();
  const v = new Validation();
  if (text === "") v.add("text", "ERR_BLANK", "can't be blank");
  v.throwIfAny();
  const preset: WarningPreset = { id: app.ids.next(), title: (input.title ?? "").trim(), text, createdAt: app.now() };
  tx(app.db, () => {
    insertWarningPreset(app.db, preset);
    audit(app, actor, "create", { type: "AccountWarningPreset", id: preset.id, name: preset.title || null }, { title: [null, preset.title], text: [null, text] });
  });
  return preset;
}

export function deletePreset(app: App, actor: Actor, id: string): void {
  requireCan(actor, "manage_settings");
  const preset = findWarningPreset(app.db, id);
  if (!preset) throw notFound();
  tx(app.db, () => {
    deleteWarningPreset(app.db, preset.id);
    audit(app, actor, "destroy", { type: "AccountWarningPreset", id: preset.id, name: preset.title || null }, { title: [preset.title, null], text: [preset.text, null] });
  });
}
