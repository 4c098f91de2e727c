// Hashtags by name and followed hashtags (Mastodon's Api::V1::TagsController,
// FollowedTagsController and TagFollow): a followed tag's public posts land in the follower's
// home at fan-out time (services/fanout.ts); unfollowing takes them out again.
import type { App } from "../app.ts";
import { tx } from "../db/db.ts";
import { notFound } from "../errors.ts";
import { cleanTagDisplayName, isValidTagName, normalizeTag } from "../lib/tags.ts";
import type { Account } from "../storage/accounts.ts";
import type { Keyset } from "../storage/keyset.ts";
import { removeTagFromHome } from "../storage/tag-feeds.ts";
import { deleteTagFollow, type FollowedTagRow, insertTagFollow, listFollowedTagsPage } from "../storage/tag-follows.ts";
import type { TagRow } from "../storage/tag-search.ts";
import { findOrCreateTag, findTagByName } from "../storage/tags.ts";

/** A tag not stored yet has the id "" (Mastodon renders its unsaved Tag so). */
export const UNSAVED_TAG_ID = "";

/**
 * The tag a path names (`/api/v1/tags/:name`): 404 unless it is a valid hashtag name
 * (Tag::HASHTAG_NAME_RE); the stored tag with that normalised name, else an unsaved one.
 */
export function tagByName(app: App, raw: string): TagRow {
  if (!isValidTagName(raw)) throw notFound();
  const name = normalizeTag(raw);
  return findTagByName(app.db, name) ?? { id: UNSAVED_TAG_ID, name, displayName: cleanTagDisplayName(raw) };
}

/** The named tag, created (spelt as given) when new. */
export function ensureTag(app: App, raw: string): TagRow {
  const tag = tagByName(app, raw);
  if (tag.id !== UNSAVED_TAG_ID) return tag;
  return findOrCreateTag(app.db, { id: app.ids.next(), name: tag.name, display: tag.displayName, at: app.now() });
}

/** POST /api/v1/tags/:name/follow: idempotent; creates the tag if needed. */
export function followTag(app: App, account: Account, raw: string): TagRow {
  return tx(app.db, () => {
    const tag = ensureTag(app, raw);
    insertTagFollow(app.db, { id: app.ids.next(), accountId: account.id, tagId: tag.id, createdAt: app.now() });
    return tag;
  });
}

/**
 * POST /api/v1/tags/:name/unfollow: idempotent. The tag's posts that only the follow put in
 * the home timeline leave it (Mastodon's TagUnmergeWorker).
 */
export function unfollowTag(app: App, account: Account, raw: string): TagRow {
  const tag = tagByName(app, raw);
  if (tag.id === UNSAVED_TAG_ID) return tag;
  tx(app.db, () => {
    if (deleteTagFollow(app.db, account.id, tag.id)) removeTagFromHome(app.db, account.id, tag.id);
  });
  return tag;
}

/** GET /api/v1/followed_tags: newest follow first, paged by the hidden tag-follow id. */
export function listFollowedTags(app: App, account: Account, page: Keyset): FollowedTagRow[] {
  return listFollowedTagsPage(app.db, account.id, page);
}
