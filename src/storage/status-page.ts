import type { App } from "../app.ts";
import { readTx } from "../db/db.ts";
import type { Id } from "../lib/ids.ts";
import { scanShortcodes } from "../lib/shortcodes.ts";
import { type CustomEmoji, findEmojisByDomain } from "./custom-emojis.ts";
import { findMediaByStatusIds, type MediaAttachment } from "./media-attachments.ts";
import { findApplicationLabels } from "./status-applications.ts";
import { findLiveStatusesCached } from "./status-cache.ts";
import { findStatusLinks, type MentionedAccount } from "./status-links.ts";
import type { Status } from "./statuses.ts";
import { loadViewerFlags, loadViewerFlagsOfViewers, type ViewerFlags } from "./status-viewer-flags.ts";

// The reads behind a page of Status entities (serializers/status.ts), batched and in one read
// transaction: a page costs a fixed number of queries whatever its length.

/** Everything a page of statuses needs besides the rows. `A`: the authors, as the caller embeds them. */
export interface StatusPage<A> {
  originals: Map<Id, Status>;
  authors: Map<Id, A>;
  mentions: Map<Id, MentionedAccount[]>;
  tags: Map<Id, string[]>;
  media: Map<Id, MediaAttachment[]>;
  /** Key: `${domain ?? ""} ${shortcode}`. */
  emojis: Map<string, CustomEmoji>;
  flags: ViewerFlags | null;
  apps: Map<Id, { name: string; website: string | null }>;
}

/** The shortcodes a status's content warning and text name (none for a boost). */
export function statusShortcodes(s: Status): string[] {
  if (s.reblogOfId) return [];
  return scanShortcodes(s.text || s.content, scanShortcodes(s.spoilerText, []));
}

/**
 * Reads a page in one read transaction. `authorsOf` gives the authors' accounts as the caller
 * embeds them (rendered, from its cache); it runs inside the transaction, so its reads share
 * the page's snapshot. Viewer flags and posting apps only for a viewer.
 */
export function readStatusPage<A extends { domain: string | null }>(
  app: App,
  statuses: Status[],
  viewerId: Id | null,
  authorsOf: (ids: Set<Id>) => Map<Id, A>,
): StatusPage<A> {
  return readTx(app.db, () => {
    const db = app.db;
    const pageIds = new Set(statuses.map((s) => s.id));
    const missing = statuses.filter((s) => s.reblogOfId && !pageIds.has(s.reblogOfId)).map((s) => s.reblogOfId!);
    const originals = findLiveStatusesCached(app, missing);
    for (const s of statuses) originals.set(s.id, s);
    const all = [...originals.values()];

    const authors = authorsOf(new Set(all.map((s) => s.accountId)));

    const contentIds = all.filter((s) => !s.reblogOfId).map((s) => s.id);
    const { mentions, tags } = findStatusLinks(db, contentIds);
    const media = findMediaByStatusIds(db, contentIds);

    // One emoji query per distinct author domain on the page (usually one).
    const byDomain = new Map<string | null, Set<string>>();
    for (const s of all) {
      const codes = statusShortcodes(s);
      if (codes.length === 0) continue;
      const domain = authors.get(s.accountId)?.domain ?? null;
      let set = byDomain.get(domain);
      if (!set) byDomain.set(domain, (set = new Set()));
      for (const c of codes) set.add(c);
    }
    const emojis = findEmojisByDomain(db, byDomain);

    const { flags, apps } = viewerId ? readViewerPart(app, all, viewerId) : { flags: null, apps: new Map() };
    return { originals, authors, mentions, tags, media, emojis, flags, apps };
  });
}

/**
 * A page's reads that depend on the viewer (flags, the viewer's own posting apps), for
 * `statuses` and their originals: lets a page read once anonymously serve many viewers.
 */
export function readViewerPart(app: App, statuses: Status[], viewerId: Id): Pick<StatusPage<never>, "flags" | "apps"> {
  const conversations = statuses.map((s) => s.conversationId).filter((c): c is Id => c !== null);
  const flags = loadViewerFlags(app.db, viewerId, statuses.map((s) => s.id), conversations);
  const appIds = statuses.filter((s) => s.accountId === viewerId && s.applicationId).map((s) => s.applicationId!);
  return { flags, apps: findApplicationLabels(app.db, appIds) };
}

/** `readViewerPart` for several viewers: one flags query for all, in one read transaction. */
export function readViewerParts(app: App, statuses: Status[], viewerIds: Id[]): Map<Id, Pick<StatusPage<never>, "flags" | "apps">> {
  return readTx(app.db, () => {
    const conversations = statuses.map((s) => s.conversationId).filter((c): c is Id => c !== null);
    const flags = loadViewerFlagsOfViewers(app.db, viewerIds, statuses.map((s) => s.id), conversations);
    const noApps = new Map<Id, { name: string; website: string | null }>();
    return new Map(
      viewerIds.map((v) => {
        // The posting app is shown to its author only.
        const appIds = statuses.filter((s) => s.accountId === v && s.applicationId).map((s) => s.applicationId!);
        return [v, { flags: flags.get(v)!, apps: appIds.length ? findApplicationLabels(app.db, appIds) : noApps }];
      }),
    );
  });
}
