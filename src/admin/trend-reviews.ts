// A moderator approves or rejects a trending hashtag, post, link or link publisher (Mastodon's
// Admin::Trends review, manage_taxonomies). The decision outlives the trend. Each review is
// audit-logged with the change of `trendable` (null before the first review): Mastodon logs
// none of these; roost logs every moderation decision.
import type { App } from "../app.ts";
import { tx } from "../db/db.ts";
import { notFound } from "../errors.ts";
import type { Id } from "../lib/ids.ts";
import { findAccountById } from "../storage/accounts.ts";
import { findStatusesByIds, type Status } from "../storage/statuses.ts";
import type { TagRow } from "../storage/tag-search.ts";
import {
  findTagsByIds,
  findTrendLinks,
  findTrendPublisher,
  type ReviewKind,
  reviewOf,
  setReview,
  type TrendLink,
  type TrendPublisher,
} from "../storage/trends.ts";
import { type Actor, requireCan } from "./actor.ts";
import { type AuditTarget, audit } from "./audit.ts";

/** Mastodon's target types: Tag, Status, PreviewCard (a link), PreviewCardProvider. */
const TARGET_TYPE: Record<ReviewKind, string> = { tag: "Tag", status: "Status", link: "PreviewCard", publisher: "PreviewCardProvider" };

function review(app: App, actor: Actor, kind: ReviewKind, id: Id, trendable: boolean, name: () => string | null): void {
  requireCan(actor, "manage_taxonomies");
  tx(app.db, () => {
    const before = reviewOf(app.db, kind, id);
    setReview(app.db, kind, id, trendable, app.now());
    const target: AuditTarget = { type: TARGET_TYPE[kind], id, name: name() };
    audit(app, actor, trendable ? "approve" : "reject", target, before === trendable ? {} : { trendable: [before, trendable] });
  });
}

export function reviewTag(app: App, actor: Actor, id: Id, trendable: boolean): TagRow {
  const [tag] = findTagsByIds(app.db, [id]);
  if (!tag) throw notFound();
  review(app, actor, "tag", id, trendable, () => tag.name);
  return tag;
}

export function reviewStatus(app: App, actor: Actor, id: Id, trendable: boolean): Status {
  const status = findStatusesByIds(app.db, [id]).get(id);
  if (!status) throw notFound();
  // As Mastodon's Status#to_log_human_identifier: the author's handle.
  const author = () => {
    const a = findAccountById(app.db, status.accountId);
    return a ? (a.domain === null ? a.username : `${a.username}@${a.domain}`) : null;
  };
  review(app, actor, "status", id, trendable, author);
  return status;
}

export function reviewLink(app: App, actor: Actor, id: Id, trendable: boolean): TrendLink {
  const link = findTrendLinks(app.db, [id]).get(id);
  if (!link) throw notFound();
  review(app, actor, "link", id, trendable, () => link.url);
  return link;
}

export function reviewPublisher(app: App, actor: Actor, id: Id, trendable: boolean): TrendPublisher {
  const publisher = findTrendPublisher(app.db, id);
  if (!publisher) throw notFound();
  review(app, actor, "publisher", id, trendable, () => publisher.domain);
  return findTrendPublisher(app.db, id)!;
}
