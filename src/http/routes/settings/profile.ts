// Settings → Profile and Preferences (issue 16 part 1): the same data and service as
// PATCH /api/v1/accounts/update_credentials (https://docs.joinmastodon.org/methods/accounts/#update_credentials).
import type { H3Event } from "h3";
import type { App } from "../../../app.ts";
import type { Router } from "../../router.ts";
import { ApiError } from "../../../errors.ts";
import { ISO_639_1 } from "../../../lib/iso-639-1.ts";
import { type ProfileInput, updateProfile } from "../../../services/accounts.ts";
import { toApiCredentialAccount } from "../../../serializers/account.ts";
import { redirectTo } from "../../html/layout.ts";
import { preferencesBody, profileBody } from "../../html/settings/profile-pages.ts";
import type { Params } from "../../params.ts";
import { readProfileInput } from "../api/v1/accounts.ts";
import { type SettingsRequest, noticeOf, renderSettings, settingsBrowser, settingsPost } from "./browser.ts";

const PROFILE = "/settings/profile";
const PREFERENCES = "/settings/preferences";
const SAVED = { saved: "Changes successfully saved!" };

const languageNames = new Intl.DisplayNames(["en"], { type: "language" });
const LANGUAGES = [...ISO_639_1].map((code) => ({ code, name: languageNames.of(code) ?? code })).sort((a, b) => a.name.localeCompare(b.name));

/** A checkbox is absent when unticked: the form's `checkboxes` marker says the boxes were on it. */
const ticked = (p: Params, name: string) => (p.has("checkboxes") ? p.str(name) === "1" : undefined);

function showProfile(app: App, event: H3Event, req: SettingsRequest, errors?: string[]): Response {
  const json = toApiCredentialAccount(app, req.browser.account, req.browser.user) as unknown as Record<string, any>;
  const body = profileBody(req.csrf, {
    displayName: json.display_name ?? "",
    note: json.source?.note ?? "",
    fields: json.source?.fields ?? [],
    maxFields: app.config.maxProfileFields,
    locked: json.locked === true,
    bot: json.bot === true,
    discoverable: json.discoverable === true,
    indexable: json.indexable === true,
    hideCollections: json.hide_collections === true,
    avatarUrl: json.avatar_static ?? json.avatar ?? "",
    headerUrl: json.header_static ?? json.header ?? "",
  });
  return renderSettings(app, event, req, { path: PROFILE, title: "Profile", body, errors, notice: errors ? undefined : noticeOf(event, SAVED) }, errors ? 422 : 200);
}

function showPreferences(app: App, event: H3Event, req: SettingsRequest, errors?: string[]): Response {
  const u = req.browser.user;
  const body = preferencesBody(req.csrf, { privacy: u.defaultPrivacy, sensitive: u.defaultSensitive, language: u.defaultLanguage, languages: LANGUAGES });
  return renderSettings(app, event, req, { path: PREFERENCES, title: "Preferences", body, errors, notice: errors ? undefined : noticeOf(event, SAVED) }, errors ? 422 : 200);
}

/** Runs the update; a validation error is shown on the form again (422) instead of JSON. */
async function save(app: App, req: SettingsRequest, input: ProfileInput): Promise<string[] | null> {
  try {
    const updated = await updateProfile(app, req.browser.account, req.browser.user, input);
    req.browser.account = updated.account;
    req.browser.user = updated.user;
    return null;
  } catch (err) {
    if (err instanceof ApiError && err.status === 422) {
      const d = err.details;
      return d ? Object.entries(d).flatMap(([attr, list]) => list.map((e) => `${attr.replace(/_/g, " ")} ${e.description}`)) : [err.error];
    }
    throw err;
  }
}

export function registerSettingsProfileRoutes(app: App, r: Router): void {
  r.get("/settings", (event) => {
    const req = settingsBrowser(app, event, "/settings");
    return req instanceof Response ? req : redirectTo(event, PROFILE);
  });

  r.get(PROFILE, (event) => {
    const req = settingsBrowser(app, event, PROFILE);
    return req instanceof Response ? req : showProfile(app, event, req);
  });

  r.post(PROFILE, async (event) => {
    const got = await settingsPost(app, event, PROFILE);
    if (got instanceof Response) return got;
    const { p, req } = got;
    const api = readProfileInput(p);
    const errors = await save(app, req, {
      displayName: api.displayName,
      note: api.note,
      fields: api.fields,
      avatar: api.avatar,
      header: api.header,
      locked: ticked(p, "locked"),
      bot: ticked(p, "bot"),
      discoverable: ticked(p, "discoverable"),
      indexable: ticked(p, "indexable"),
      hideCollections: ticked(p, "hide_collections"),
    });
    return errors ? showProfile(app, event, req, errors) : redirectTo(event, `${PROFILE}?notice=saved`);
  });

  r.get(PREFERENCES, (event) => {
    const req = settingsBrowser(app, event, PREFERENCES);
    return req instanceof Response ? req : showPreferences(app, event, req);
  });

  r.post(PREFERENCES, async (event) => {
    const got = await settingsPost(app, event, PREFERENCES);
    if (got instanceof Response) return got;
    const { p, req } = got;
    const api = readProfileInput(p);
    const errors = await save(app, req, { privacy: api.privacy, language: api.language, sensitive: ticked(p, "sensitive") });
    return errors ? showPreferences(app, event, req, errors) : redirectTo(event, `${PREFERENCES}?notice=saved`);
  });
}
