import type { App } from "../app.ts";
import { tx } from "../db/db.ts";
import { isLanguageCode } from "../lib/iso-639-1.ts";
import { clipCodePoints, exceedsCodePoints } from "../lib/code-points.ts";
import { escapeHtml, exceedsTextLimit, extractMentions, formatPlainText, type EntityExtractor } from "../lib/text-html.ts";
import { Validation } from "../lib/validation.ts";
import { hashtagExtractor } from "../lib/status-text.ts";
import { removeMediaFiles } from "../media/files.ts";
import { type Account, type ProfileField, findAccountByHandle, updateAccount } from "../storage/accounts.ts";
import { type FieldSource, type ProfileSettings, updateFieldSources, updateProfileSettings } from "../storage/account-profile.ts";
import { type Privacy, type User, updateUser } from "../storage/users.ts";
import { isLocalDomain, reloadViewer } from "./account-lookup.ts";
import { normalizeDomain } from "./domain-blocks.ts";
import { onProfileUpdated } from "../federation/outbox/hooks.ts";
import { authorizeAllFollowRequests } from "./follows.ts";
import { type ProfileImageKind, type StoredProfileImage, profileImageFiles, readProfileImage, storeProfileImage } from "./profile-media.ts";

// PATCH /api/v1/accounts/update_credentials and the avatar/header deletions: the profile of a
// local account. Text is stored as typed (note_source, fields_source) and as rendered HTML.

export interface ProfileInput {
  displayName?: string;
  note?: string;
  locked?: boolean;
  bot?: boolean;
  discoverable?: boolean;
  hideCollections?: boolean;
  indexable?: boolean;
  /** Replaces every field; entries with a blank name and value are dropped. */
  fields?: FieldSource[];
  avatar?: File;
  header?: File;
  privacy?: string;
  sensitive?: boolean;
  /** "" or null clears the default language. */
  language?: string | null;
  // GET/PATCH /api/v1/profile (4.6); attribution domains also through update_credentials (4.4).
  avatarDescription?: string;
  headerDescription?: string;
  showMedia?: boolean;
  showMediaReplies?: boolean;
  showFeatured?: boolean;
  /** Replaces the list; an empty list clears it. */
  attributionDomains?: string[];
}

const DISPLAY_NAME_MAX = 30;
const NOTE_MAX = 500;
// Account::Field cuts local names and values at 255 characters (remote ones at 2047).
const FIELD_MAX = 255;
const PRIVACIES = new Set(["public", "unlisted", "private"]);
// Mastodon's avatar/header description limit (configuration.accounts.max_avatar_description_length)
// and Account::AttributionDomains::ATTRIBUTION_DOMAINS_LIMIT.
const IMAGE_DESCRIPTION_MAX = 150;
const ATTRIBUTION_DOMAINS_MAX = 100;

/** Links `@user` / `@user@domain` of accounts this server knows (bios and profile fields). */
export function knownMentions(app: App, withDomains: boolean): EntityExtractor {
  return (text) =>
    extractMentions(text).flatMap((m) => {
      const domain = m.domain !== null && !isLocalDomain(app, m.domain) ? m.domain : null;
      const target = findAccountByHandle(app.db, m.username, domain);
      if (!target || target.suspendedAt !== null) return [];
      const name = withDomains && target.domain ? `${target.username}@${target.domain}` : target.username;
      const href = escapeHtml(target.url ?? target.uri);
      const html = `<span class="h-card" translate="no"><a href="${href}" class="u-url mention">@<span>${escapeHtml(name)}</span></a></span>`;
      return [{ start: m.start, end: m.end, html }];
    });
}

// Bios and field values link mentions and hashtags, as Mastodon's account_bio_format does.
export function renderNote(app: App, note: string): string {
  return formatPlainText(note, { extractors: [knownMentions(app, false), hashtagExtractor(app.baseUrl)] });
}

export function renderField(app: App, f: FieldSource, old: ProfileField[]): ProfileField {
  const value = formatPlainText(f.value, { multiline: false, relMe: true, extractors: [knownMentions(app, true), hashtagExtractor(app.baseUrl)] });
  // A field keeps its verification while its value is unchanged (Mastodon's fields_attributes=).
  const previous = old.find((o) => o.value === value && o.verified_at);
  return { name: f.name, value, verified_at: previous?.verified_at ?? null };
}

/**
 * Mastodon's `normalizes :attribution_domains` (scheme and `*.` prefixes dropped, blanks and
 * repeats removed) and DomainValidator (host names of letters, digits and hyphens, as punycode).
 */
function attributionDomains(raw: string[], v: Validation): string[] {
  const out: string[] = [];
  for (const entry of raw) {
    const typed = entry.trim().replace(/^https?:\/\//i, "").replace(/^\*\./, "");
    if (typed === "") continue;
    const domain = normalizeDomain(typed);
    if (!domain || domain.includes("_")) v.add("attribution_domains", "ERR_INVALID", `${clipCodePoints(typed, 255)} is not a valid domain name`);
    else if (!out.includes(domain)) out.push(domain);
  }
  if (out.length > ATTRIBUTION_DOMAINS_MAX)
    v.add("attribution_domains", "ERR_TOO_LONG", `is too long (maximum is ${ATTRIBUTION_DOMAINS_MAX} characters)`);
  return out;
}

function cleanFields(fields: FieldSource[]): FieldSource[] {
  return fields
    .map((f) => ({ name: clipCodePoints(f.name.trim(), FIELD_MAX), value: clipCodePoints(f.value.trim(), FIELD_MAX) }))
    .filter((f) => f.name !== "" || f.value !== "");
}

/** Validates everything first, then resizes images, then writes in one transaction. */
export async function updateProfile(app: App, account: Account, user: User, input: ProfileInput): Promise<{ account: Account; user: User }> {
  const v = new Validation();
  const displayName = input.displayName?.trim();
  if (displayName !== undefined && exceedsCodePoints(displayName, DISPLAY_NAME_MAX))
    v.add("display_name", "ERR_TOO_LONG", `is too long (maximum is ${DISPLAY_NAME_MAX} characters)`);
  const note = input.note?.replace(/\r\n?/g, "\n").trim();
  if (note !== undefined && exceedsTextLimit(note, NOTE_MAX))
    v.add("note", "ERR_TOO_LONG", `character limit of ${NOTE_MAX} exceeded`);
  const fields = input.fields && cleanFields(input.fields);
  if (fields) {
    // Rails' length validator on an array still says "characters".
    if (fields.length > app.config.maxProfileFields)
      v.add("fields", "ERR_TOO_LONG", `is too long (maximum is ${app.config.maxProfileFields} characters)`);
    if (fields.some((f) => f.name === "" && f.value !== ""))
      v.add("fields", "ERR_FIELDS_WITH_VALUES_MISSING_LABELS", "contains values with missing labels");
  }
  if (input.privacy !== undefined && !PRIVACIES.has(input.privacy))
    v.add("default_privacy", "ERR_INCLUSION", "is not included in the list");
  const language = input.language === undefined ? undefined : input.language === null || input.language.trim() === "" ? null : input.language.trim();
  if (language && !isLanguageCode(language)) v.add("default_language", "ERR_INCLUSION", "is not included in the list");
  for (const [attr, text] of [["avatar_description", input.avatarDescription], ["header_description", input.headerDescription]] as const) {
    if (text !== undefined && exceedsCodePoints(text, IMAGE_DESCRIPTION_MAX))
      v.add(attr, "ERR_TOO_LONG", `is too long (maximum is ${IMAGE_DESCRIPTION_MAX} characters)`);
  }
  const domains = input.attributionDomains && attributionDomains(input.attributionDomains, v);
  const images: Partial<Record<ProfileImageKind, Uint8Array>> = {};
  for (const kind of ["avatar", "header"] as const) {
    const file = input[kind];
    if (file) images[kind] = await readProfileImage(app, kind, file, v);
  }
  v.throwIfAny();

  const stored: Partial<Record<ProfileImageKind, StoredProfileImage>> = {};
  try {
    for (const kind of ["avatar", "header"] as const) {
      const data = images[kind];
      if (data) stored[kind] = await storeProfileImage(app, account.id, kind, data);
    }
  } catch (err) {
    await removeMediaFiles(app, Object.values(stored).flatMap((s) => s.written));
    throw err;
  }

  const now = app.now();
  const patch: Partial<Account> = { updatedAt: now };
  if (displayName !== undefined) patch.displayName = displayName;
  if (note !== undefined) {
    patch.noteSource = note;
    patch.note = renderNote(app, note);
  }
  if (fields) patch.fields = fields.map((f) => renderField(app, f, account.fields));
  if (input.locked !== undefined) patch.locked = input.locked;
  if (input.bot !== undefined) patch.actorType = input.bot ? "Service" : "Person";
  if (input.discoverable !== undefined) patch.discoverable = input.discoverable;
  if (input.hideCollections !== undefined) patch.hideCollections = input.hideCollections;
  if (input.indexable !== undefined) patch.indexable = input.indexable;
  const old: string[] = [];
  for (const kind of ["avatar", "header"] as const) {
    const s = stored[kind];
    if (!s) continue;
    old.push(...profileImageFiles(account, kind));
    if (kind === "avatar") Object.assign(patch, { avatarFile: s.file, avatarContentType: s.contentType, avatarRemoteUrl: null });
    else Object.assign(patch, { headerFile: s.file, headerContentType: s.contentType, headerRemoteUrl: null });
  }
  const userPatch: Partial<User> = {};
  if (input.privacy !== undefined) userPatch.defaultPrivacy = input.privacy as Privacy;
  if (input.sensitive !== undefined) userPatch.defaultSensitive = input.sensitive;
  if (language !== undefined) userPatch.defaultLanguage = language;
  const settings: Partial<ProfileSettings> = {
    avatarDescription: input.avatarDescription?.trim(),
    headerDescription: input.headerDescription?.trim(),
    showMedia: input.showMedia,
    showMediaReplies: input.showMediaReplies,
    showFeatured: input.showFeatured,
    attributionDomains: domains,
  };

  try {
    tx(app.db, () => {
      updateAccount(app.db, account.id, patch);
      if (fields) updateFieldSources(app.db, account.id, fields);
      updateProfileSettings(app.db, account.id, settings);
      if (Object.keys(userPatch).length) updateUser(app.db, user.id, { ...userPatch, updatedAt: now });
      // Unlocking accepts the pending follow requests, as Mastodon's UpdateAccountService does.
      if (account.locked && input.locked === false) authorizeAllFollowRequests(app, account.id);
      onProfileUpdated(app, account);
    });
  } catch (err) {
    await removeMediaFiles(app, Object.values(stored).flatMap((s) => s.written));
    throw err;
  }
  await removeMediaFiles(app, old);
  return reloadViewer(app, account.id, user.id);
}

/** DELETE /api/v1/profile/avatar|header: back to the default image; idempotent. */
export async function removeProfileImage(app: App, account: Account, user: User, kind: ProfileImageKind): Promise<{ account: Account; user: User }> {
  const files = profileImageFiles(account, kind);
  const patch: Partial<Account> =
    kind === "avatar"
      ? { avatarFile: null, avatarContentType: null, avatarRemoteUrl: null }
      : { headerFile: null, headerContentType: null, headerRemoteUrl: null };
  tx(app.db, () => {
    updateAccount(app.db, account.id, { ...patch, updatedAt: app.now() });
    onProfileUpdated(app, account);
  });
  await removeMediaFiles(app, files);
  return reloadViewer(app, account.id, user.id);
}

