import { join } from "node:path";
import type { App } from "../app.ts";
import { tx } from "../db/db.ts";
import type { Id } from "../lib/ids.ts";
import { mediaStore } from "../media/store.ts";
import {
  type CachedRemoteFiles,
  cachedAccountImages,
  cachedAttachmentsOfStatuses,
  cachedRemoteAttachments,
  forgetAccountImageCopies,
  forgetAttachmentCopies,
} from "../storage/remote-media-cache.ts";
import { fileBytes } from "./disk-usage.ts";

// The storage budget's first resort: local copies of remote media (attachments, avatars,
// headers). Evicting a copy leaves the row pointing at the origin's URL, so nothing the API
// shows disappears. Kept apart from status pruning: the remote media cache (wt/media-store)
// decides what gets copied; this module only decides what goes.

export interface Evicted {
  /** Attachments or accounts whose copies went. */
  items: number;
  files: number;
  bytes: number;
}

export const noneEvicted = (): Evicted => ({ items: 0, files: 0, bytes: 0 });

const BATCH = 200;

/** The row forgets its copies first, then the files go: a crash in between leaks files, never breaks rows. */
async function evict(app: App, found: CachedRemoteFiles[], forget: (id: Id) => void, out: Evicted, dryRun: boolean, enough?: (freed: number) => boolean): Promise<boolean> {
  for (const item of found) {
    if (enough?.(out.bytes)) return true;
    const bytes = item.files.reduce((n, f) => n + fileBytes(join(app.mediaDir, f)), 0);
    if (!dryRun) {
      tx(app.db, () => forget(item.id));
      await mediaStore(app).remove(item.files);
    }
    out.items++;
    out.files += item.files.length;
    out.bytes += bytes;
  }
  return enough?.(out.bytes) ?? false;
}

/**
 * Evicts copies of remote attachments made before `before` (ms), oldest first, until
 * `enough(bytesFreedSoFar)` says so (never, without it).
 */
export async function evictRemoteAttachments(app: App, opts: { before: number; dryRun: boolean; enough?: (freed: number) => boolean }): Promise<Evicted> {
  const out = noneEvicted();
  let after: Id = "0";
  for (;;) {
    const batch = cachedRemoteAttachments(app.db, after, opts.before, BATCH);
    if (batch.length === 0) return out;
    if (await evict(app, batch, (id) => forgetAttachmentCopies(app.db, id), out, opts.dryRun, opts.enough)) return out;
    after = batch[batch.length - 1].id;
    await new Promise((r) => setImmediate(r)); // requests in between
  }
}

/** Evicts the copies of these statuses' attachments (before the statuses themselves go). */
export async function evictStatusesMedia(app: App, statusIds: Id[], dryRun: boolean): Promise<Evicted> {
  const out = noneEvicted();
  if (statusIds.length) await evict(app, cachedAttachmentsOfStatuses(app.db, statusIds), (id) => forgetAttachmentCopies(app.db, id), out, dryRun);
  return out;
}

/** Evicts a remote account's cached avatar and header. */
export async function evictAccountImages(app: App, accountId: Id, dryRun: boolean): Promise<Evicted> {
  const out = noneEvicted();
  const found = cachedAccountImages(app.db, accountId);
  if (found) await evict(app, [found], (id) => forgetAccountImageCopies(app.db, id), out, dryRun);
  return out;
}

export function addEvicted(into: Evicted, e: Evicted): void {
  into.items += e.items;
  into.files += e.files;
  into.bytes += e.bytes;
}
