// https://docs.joinmastodon.org/entities/Profile/ (entities-core.md "Profile", Mastodon 4.6): the
// caller's own profile with the source of every editable field.
import type { App } from "../app.ts";
import { mediaUrl } from "../lib/urls.ts";
import { stillName } from "../media/files.ts";
import type { Account } from "../storage/accounts.ts";
import { findCredentialExtras, findProfileSettings } from "../storage/account-profile.ts";
import { listFeaturedTags } from "../storage/featured-tags.ts";
import { type ApiFeaturedTag, toApiFeaturedTags } from "./featured-tag.ts";

export interface ApiProfile {
  id: string;
  display_name: string;
  note: string;
  fields: { name: string; value: string; verified_at: string | null }[];
  formatted_note: string;
  formatted_fields: { name: string; value: string; verified_at: string | null }[];
  avatar: string | null;
  avatar_static: string | null;
  avatar_description: string;
  header: string | null;
  header_static: string | null;
  header_description: string;
  locked: boolean;
  bot: boolean;
  hide_collections: boolean | null;
  discoverable: boolean | null;
  indexable: boolean;
  show_media: boolean;
  show_media_replies: boolean;
  show_featured: boolean;
  attribution_domains: string[];
  featured_tags: ApiFeaturedTag[];
}

/** Unlike the Account entity, an unset image is null, not the default picture. */
function image(app: App, file: string | null, type: string | null): { url: string | null; still: string | null } {
  if (!file) return { url: null, still: null };
  return { url: mediaUrl(app.baseUrl, file), still: mediaUrl(app.baseUrl, stillName(file, type) ?? file) };
}

export function toApiProfile(app: App, account: Account): ApiProfile {
  const settings = findProfileSettings(app.db, account.id);
  const sources = findCredentialExtras(app.db, account.id, 0).fieldSources;
  const avatar = image(app, account.avatarFile, account.avatarContentType);
  const header = image(app, account.headerFile, account.headerContentType);
  const verified = (i: number) => account.fields[i]?.verified_at ?? null;
  return {
    id: account.id,
    display_name: account.displayName,
    note: account.noteSource,
    fields: sources.map((f, i) => ({ name: f.name, value: f.value, verified_at: verified(i) })),
    formatted_note: account.note,
    formatted_fields: account.fields.map((f) => ({ name: f.name, value: f.value, verified_at: f.verified_at ?? null })),
    avatar: avatar.url,
    avatar_static: avatar.still,
    avatar_description: settings.avatarDescription,
    header: header.url,
    header_static: header.still,
    header_description: settings.headerDescription,
    locked: account.locked,
    bot: account.actorType === "Service" || account.actorType === "Application",
    hide_collections: account.hideCollections,
    discoverable: account.discoverable,
    indexable: account.indexable,
    show_media: settings.showMedia,
    show_media_replies: settings.showMediaReplies,
    show_featured: settings.showFeatured,
    attribution_domains: settings.attributionDomains,
    featured_tags: toApiFeaturedTags(app, account, listFeaturedTags(app.db, account.id, "uses")),
  };
}
