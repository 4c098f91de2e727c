import { esc } from "../layout.ts";
import { csrfField } from "./shell.ts";

// Settings → Profile and Preferences: the fields of update_credentials as plain forms.

export interface ProfileForm {
  displayName: string;
  note: string;
  fields: { name: string; value: string }[];
  maxFields: number;
  locked: boolean;
  bot: boolean;
  discoverable: boolean;
  indexable: boolean;
  hideCollections: boolean;
  avatarUrl: string;
  headerUrl: string;
}

const check = (name: string, on: boolean, label: string, hint: string) =>
  `<label class="check" for="${name}"><input type="checkbox" id="${name}" name="${name}" value="1"${on ? " checked" : ""}><span>${esc(label)}<br><span class="muted">${esc(hint)}</span></span></label>`;

export function profileBody(csrf: string, f: ProfileForm): string {
  const rows: string[] = [];
  for (let i = 0; i < f.maxFields; i++) {
    const field = f.fields[i] ?? { name: "", value: "" };
    rows.push(`<tr><td><label for="field-${i}-name" class="visually-hidden">Label ${i + 1}</label><input type="text" id="field-${i}-name" name="fields_attributes[${i}][name]" maxlength="255" value="${esc(field.name)}"></td>
<td><label for="field-${i}-value" class="visually-hidden">Content ${i + 1}</label><input type="text" id="field-${i}-value" name="fields_attributes[${i}][value]" maxlength="255" value="${esc(field.value)}"></td></tr>`);
  }
  return `<form method="post" action="/settings/profile" enctype="multipart/form-data">${csrfField(csrf)}
<label for="display_name">Display name</label>
<input type="text" id="display_name" name="display_name" maxlength="30" value="${esc(f.displayName)}">
<label for="note">Bio</label>
<textarea id="note" name="note" rows="4" maxlength="500">${esc(f.note)}</textarea>
<label for="avatar">Avatar</label>
<p class="muted"><img src="${esc(f.avatarUrl)}" alt="Current avatar" width="48" height="48"> PNG, GIF or JPG, downscaled to 400×400.</p>
<input type="file" id="avatar" name="avatar" accept="image/png,image/gif,image/jpeg,image/webp">
<label for="header">Header</label>
<p class="muted"><img src="${esc(f.headerUrl)}" alt="Current header" width="150" height="50"> PNG, GIF or JPG, downscaled to 1500×500.</p>
<input type="file" id="header" name="header" accept="image/png,image/gif,image/jpeg,image/webp">
<fieldset><legend>Extra fields</legend>
<table class="list"><thead><tr><th scope="col">Label</th><th scope="col">Content</th></tr></thead><tbody>${rows.join("")}</tbody></table></fieldset>
<fieldset><legend>Privacy and reach</legend>
<input type="hidden" name="checkboxes" value="1">
${check("locked", f.locked, "Require follow requests", "Manually approve who can follow you.")}
${check("bot", f.bot, "This is a bot account", "This account mainly performs automated actions.")}
${check("discoverable", f.discoverable, "Feature profile and posts in discovery", "Your profile may be suggested and shown in the directory.")}
${check("indexable", f.indexable, "Include public posts in search results", "People may find your public posts by searching.")}
${check("hide_collections", f.hideCollections, "Hide your social graph", "Others cannot see whom you follow and who follows you.")}
</fieldset>
<div class="actions"><button type="submit">Save changes</button></div>
</form>`;
}

export interface PreferencesForm {
  privacy: string;
  sensitive: boolean;
  language: string | null;
  languages: { code: string; name: string }[];
}

const VISIBILITIES: [string, string][] = [
  ["public", "Public"],
  ["unlisted", "Quiet public (unlisted)"],
  ["private", "Followers only"],
];

export function preferencesBody(csrf: string, f: PreferencesForm): string {
  const vis = VISIBILITIES.map(([v, l]) => `<option value="${v}"${f.privacy === v ? " selected" : ""}>${esc(l)}</option>`).join("");
  const langs = [`<option value=""${f.language ? "" : " selected"}>No default</option>`]
    .concat(f.languages.map((l) => `<option value="${esc(l.code)}"${f.language === l.code ? " selected" : ""}>${esc(l.name)} (${esc(l.code)})</option>`))
    .join("");
  return `<form method="post" action="/settings/preferences">${csrfField(csrf)}
<h2>Posting defaults</h2>
<label for="privacy">Posting privacy</label>
<select id="privacy" name="source[privacy]">${vis}</select>
<label for="language">Posting language</label>
<select id="language" name="source[language]">${langs}</select>
<input type="hidden" name="checkboxes" value="1">
${check("sensitive", f.sensitive, "Always mark media as sensitive", "Your media is hidden behind a warning by default.")}
<div class="actions"><button type="submit">Save changes</button></div>
</form>`;
}
