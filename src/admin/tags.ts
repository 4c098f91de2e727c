import type { App } from "../app.ts";
import { tx } from "../db/db.ts";
import { notFound } from "../errors.ts";
import { parseId } from "../lib/ids.ts";
import { cleanTagDisplayName, normalizeTag } from "../lib/tags.ts";
import { Validation } from "../lib/validation.ts";
import { type AdminTag, type AdminTagStatus, effectiveTagFlags, findAdminTag, listAdminTagsPage, updateTagModeration } from "../storage/admin-tags.ts";
import { findTagByName } from "../storage/tags.ts";
import type { Page } from "../storage/timelines.ts";
import { setReview } from "../storage/trends.ts";
import { type Actor, requireCan } from "./actor.ts";
import { audit, changesOf } from "./audit.ts";

// Hashtag moderation (Mastodon's Api::V1::Admin::TagsController, manage_taxonomies): a tag
// may be made unusable (new local posts with it are refused, other posts no longer link it:
// services/statuses.ts, storage/tags.ts), unlisted (left out of search and suggestions) or
// kept from trending (its trend review, the same one /admin/trends/tags/:id/reject sets).

export type { AdminTagStatus };
export const ADMIN_TAG_STATUSES: AdminTagStatus[] = ["reviewed", "unreviewed", "pending_review"];

export interface TagModeration {
  displayName?: string;
  usable?: boolean;
  listable?: boolean;
  trendable?: boolean;
}

const fieldsOf = (app: App, t: AdminTag) => ({ display_name: t.displayName, ...effectiveTagFlags(t, app.config.trendsRequireReview) });

export function listAdminTags(app: App, actor: Actor, page: Page, filter: { name?: string; status?: AdminTagStatus } = {}): AdminTag[] {
  requireCan(actor, "manage_taxonomies");
  const name = filter.name === undefined ? undefined : normalizeTag(filter.name.replace(/^[#＃]/, "").slice(0, 200));
  return listAdminTagsPage(app.db, page, { ...filter, name: name || undefined });
}

/** By id, or for the CLI by name too. */
export function requireAdminTag(app: App, ref: string | undefined, byName = false): AdminTag {
  const id = parseId(ref);
  let tag = id ? findAdminTag(app.db, id) : undefined;
  if (!tag && byName && ref) {
    const found = findTagByName(app.db, normalizeTag(ref.replace(/^[#＃]/, "").slice(0, 200)));
    tag = found && findAdminTag(app.db, found.id);
  }
  if (!tag) throw notFound();
  return tag;
}

/** PUT: the flags given, and a display name differing from the name only in letter case. */
export function moderateTag(app: App, actor: Actor, tag: AdminTag, input: TagModeration): AdminTag {
  requireCan(actor, "manage_taxonomies");
  let displayName = tag.displayName;
  if (input.displayName !== undefined && input.displayName.trim() !== "") {
    const wanted = cleanTagDisplayName(input.displayName.trim().slice(0, tag.displayName.length * 4 + 8).replace(/^[#＃]/, ""));
    // Mastodon's Tag#validate_display_name_change.
    if (normalizeTag(wanted) !== tag.name) new Validation().add("display_name", "ERR_INVALID", "does not match the previous name").throwIfAny();
    displayName = wanted;
  }
  const now = app.now();
  return tx(app.db, () => {
    updateTagModeration(app.db, tag.id, {
      displayName,
      usable: input.usable ?? tag.usable,
      listable: input.listable ?? tag.listable,
      reviewedAt: now,
    });
    if (input.trendable !== undefined) setReview(app.db, "tag", tag.id, input.trendable, now);
    const after = findAdminTag(app.db, tag.id)!;
    audit(app, actor, "update", { type: "Tag", id: tag.id, name: tag.name }, changesOf(fieldsOf(app, tag), fieldsOf(app, after)));
    return after;
  });
}
