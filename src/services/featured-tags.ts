// Featured hashtags of a local profile (Mastodon's FeaturedTag, CreateFeaturedTagService,
// RemoveFeaturedTagService, Api::V1::FeaturedTagsController): at most ten, each showing how
// many of the owner's public and unlisted posts carry it. Followers' servers hear of changes
// as Add / Remove of a Hashtag (federation/outbox/hooks.ts).
import type { App } from "../app.ts";
import { tx } from "../db/db.ts";
import { notFound, unprocessable } from "../errors.ts";
import { parseId } from "../lib/ids.ts";
import { isValidTagName, normalizeTag } from "../lib/tags.ts";
import type { Account } from "../storage/accounts.ts";
import {
  countFeaturedTags,
  deleteFeaturedTag,
  type FeaturedTag,
  findFeaturedTag,
  findFeaturedTagByTag,
  insertFeaturedTag,
  listFeaturedTags,
  suggestedFeaturedTags,
} from "../storage/featured-tags.ts";
import type { TagRow } from "../storage/tag-search.ts";
import { findOrCreateTag, findTagByName } from "../storage/tags.ts";
import { onFeaturedTagChanged } from "../federation/outbox/hooks.ts";
import { ensureTag, tagByName, UNSAVED_TAG_ID } from "./tags.ts";

/** FeaturedTag::LIMIT (local accounts only). */
export const FEATURED_TAGS_LIMIT = 10;
// Api::V1::FeaturedTags::SuggestionsController::RECENT_TAGS_LIMIT and Tag::RECENT_STATUS_LIMIT.
const SUGGESTIONS_LIMIT = 10;
const SUGGESTIONS_FROM_RECENT = 1000;

const LIMIT_REACHED = "You have already featured the maximum number of hashtags";

/** GET /api/v1/featured_tags: the caller's, most used first. */
export function listOwnFeaturedTags(app: App, account: Account): FeaturedTag[] {
  return listFeaturedTags(app.db, account.id, "uses");
}

/** GET /api/v1/accounts/:id/featured_tags: none for a suspended account. */
export function listAccountFeaturedTags(app: App, account: Account): FeaturedTag[] {
  return account.suspendedAt !== null ? [] : listFeaturedTags(app.db, account.id, "featured");
}

function insertAndAnnounce(app: App, account: Account, tag: TagRow, name: string): FeaturedTag {
  const id = app.ids.next();
  insertFeaturedTag(app.db, { id, accountId: account.id, tagId: tag.id, name, url: null, createdAt: app.now() });
  const featured = findFeaturedTag(app.db, account.id, id)!;
  onFeaturedTagChanged(app, "Add", account, featured);
  return featured;
}

/**
 * POST /api/v1/featured_tags. `raw` may start with `#`. The same spelling featured already is
 * returned as it is (find_or_initialize_by(name:)); otherwise the name must be a valid hashtag
 * not featured yet under another spelling, within the limit, each failure a 422 in Rails'
 * words, every failed check listed.
 */
export function createFeaturedTag(app: App, account: Account, raw: string): FeaturedTag {
  const name = raw.trim().replace(/^#/, "");
  return tx(app.db, () => {
    const errors: string[] = [];
    let tag: TagRow | undefined;
    if (name === "") errors.push("Name can't be blank");
    else if (!isValidTagName(name)) errors.push("Name is invalid");
    else {
      tag = findTagByName(app.db, normalizeTag(name));
      const known = tag && findFeaturedTagByTag(app.db, account.id, tag.id);
      if (known && known.name === name) return known;
      if (known) errors.push("Tag has already been taken");
    }
    if (countFeaturedTags(app.db, account.id) >= FEATURED_TAGS_LIMIT) errors.push(LIMIT_REACHED);
    if (errors.length) throw unprocessable(`Validation failed: ${errors.join(", ")}`);
    tag ??= findOrCreateTag(app.db, { id: app.ids.next(), name: normalizeTag(name), display: name, at: app.now() });
    return insertAndAnnounce(app, account, tag, name);
  });
}

/** DELETE /api/v1/featured_tags/:id: 404 unless it is one of the caller's. */
export function removeFeaturedTag(app: App, account: Account, rawId: string | undefined): void {
  const id = parseId(rawId);
  const featured = id && findFeaturedTag(app.db, account.id, id);
  if (!featured) throw notFound();
  tx(app.db, () => {
    onFeaturedTagChanged(app, "Remove", account, featured);
    deleteFeaturedTag(app.db, featured.id);
  });
}

/** POST /api/v1/tags/:name/feature (4.4): idempotent; creates the tag when new. */
export function featureTag(app: App, account: Account, raw: string): TagRow {
  return tx(app.db, () => {
    const tag = ensureTag(app, raw);
    if (findFeaturedTagByTag(app.db, account.id, tag.id)) return tag;
    if (countFeaturedTags(app.db, account.id) >= FEATURED_TAGS_LIMIT) throw unprocessable(`Validation failed: ${LIMIT_REACHED}`);
    insertAndAnnounce(app, account, tag, tag.displayName);
    return tag;
  });
}

/** POST /api/v1/tags/:name/unfeature (4.4): idempotent. */
export function unfeatureTag(app: App, account: Account, raw: string): TagRow {
  const tag = tagByName(app, raw);
  if (tag.id === UNSAVED_TAG_ID) return tag;
  tx(app.db, () => {
    const featured = findFeaturedTagByTag(app.db, account.id, tag.id);
    if (!featured) return;
    onFeaturedTagChanged(app, "Remove", account, featured);
    deleteFeaturedTag(app.db, featured.id);
  });
  return tag;
}

/** GET /api/v1/featured_tags/suggestions: tags of the caller's recent posts it does not feature. */
export function suggestFeaturedTags(app: App, account: Account): TagRow[] {
  return suggestedFeaturedTags(app.db, account.id, SUGGESTIONS_FROM_RECENT, SUGGESTIONS_LIMIT);
}
