// Post history import (issue 16 part 7; Mastodon has no such feature): a Mastodon archive ZIP
// uploaded on the settings page becomes posts of the local account. The upload is checked at
// once (a ZIP, safe names, an outbox.json), kept under <dataDir>/imports/, and a job does the
// rest: it lists the outbox's posts (post-import-notes.ts), then imports them oldest first, a
// batch per run, each with its date (the id made from `published`, as a remote post's is),
// visibility, content warning, language, its parent when that came from the archive, and its
// media through the media pipeline. Imported posts are not fanned out, streamed or federated
// (as posts fetched to complete a thread) unless the person asks to send them to followers.
// Each post's source id is remembered: importing the same archive again adds nothing.
import { mkdir, rename, rm, stat } from "node:fs/promises";
import { createWriteStream } from "node:fs";
import { join } from "node:path";
import { pipeline } from "node:stream/promises";
import type { App } from "../app.ts";
import { savepoint, tx } from "../db/db.ts";
import { ApiError } from "../errors.ts";
import { idAt, type Id } from "../lib/ids.ts";
import { canonicalizeMentions, formatStatusText } from "../lib/status-text.ts";
import { uniqueHashtags } from "../lib/tags.ts";
import { ensureStagingDir, newStagedPath, removeStaged } from "../media/staging.ts";
import { type Account, findAccountById } from "../storage/accounts.ts";
import { unusableTagNames } from "../storage/admin-tags.ts";
import { findStatusById, findStatusByUri, type Status } from "../storage/statuses.ts";
import {
  countNotedPostImportItems,
  findImportedStatusId,
  findPostImport,
  finishPostImport,
  finishPostImportItem,
  insertImportedStatus,
  insertPostImport,
  listPostImports,
  notedPostImportItems,
  pendingPostImportItems,
  type PostImport,
  type PostImportItem,
  startPostImportItems,
} from "../storage/post-imports.ts";
import { ArchiveRefused, attachmentEntryName, checkArchiveFile, openZipArchive, readJsonEntry, readOutboxItems, type ZipArchive } from "./post-import-archive.ts";
import { type ImportedNote, listOutbox, MAX_IMPORTED_TEXT } from "./post-import-notes.ts";
import { MAX_DESCRIPTION_CHARS, uploadMedia } from "./media-uploads.ts";
import { deliverableMentions, knownAccountResolver, persistStatus } from "./statuses.ts";

export type { PostImport };
export const POST_IMPORT_JOB = "post_import.process";
/** Posts per job run (each may carry media processed in the pool). */
const BATCH = 25;
const LIST_SLICE = 500;

export const postImportsDir = (app: App) => join(app.config.dataDir, "imports");

/**
 * Takes an uploaded archive (a staged file): checks it, moves it under imports/ and starts
 * the job. 422 with the reason when the archive is refused.
 */
export async function startPostImport(
  app: App,
  account: Account,
  upload: { path: string; size: number; filename: string },
  opts: { deliver: boolean },
): Promise<PostImport> {
  if (upload.size === 0) throw new ApiError(422, "Choose a Mastodon archive (a ZIP file) to upload.");
  if (upload.size > app.config.maxArchiveImportBytes) throw new ApiError(413, "The archive is larger than this server accepts.");
  await checkArchiveFile(upload.path);
  const id = app.ids.next();
  const file = `posts-${id}.zip`;
  await mkdir(postImportsDir(app), { recursive: true });
  await rename(upload.path, join(postImportsDir(app), file));
  tx(app.db, () => {
    insertPostImport(app.db, { id, accountId: account.id, file, originalFilename: upload.filename.slice(0, 255), deliver: opts.deliver, createdAt: app.now() });
    app.jobs.enqueue(POST_IMPORT_JOB, { importId: id });
  });
  return findPostImport(app.db, id)!;
}

export interface PostImportView {
  imp: PostImport;
  notes: { uri: string; note: string }[];
  notedCount: number;
}

export function recentPostImports(app: App, account: Account): PostImportView[] {
  return listPostImports(app.db, account.id, 10).map((imp) => ({
    imp,
    notes: notedPostImportItems(app.db, imp.id, 100).map((i) => ({ uri: i.sourceUri, note: i.note ?? "" })),
    notedCount: countNotedPostImportItems(app.db, imp.id),
  }));
}

/** The job: the first run lists the archive's posts, later runs import a batch each. */
export async function processPostImport(app: App, payload: { importId?: string }): Promise<void> {
  const imp = payload.importId ? findPostImport(app.db, payload.importId) : undefined;
  if (!imp || imp.state === "finished" || imp.state === "failed") return;
  const account = findAccountById(app.db, imp.accountId);
  const path = imp.file ? join(postImportsDir(app), imp.file) : undefined;
  const fail = async (message: string) => {
    finishPostImport(app.db, imp.id, app.now(), message);
    if (path) await rm(path, { force: true });
  };
  if (!account || account.suspendedAt !== null || !path) return fail("The import was stopped.");
  let zip: ZipArchive;
  try {
    await stat(path);
    zip = await openZipArchive(path);
  } catch (e) {
    return fail(e instanceof ArchiveRefused ? e.message : "The archive could not be read.");
  }
  try {
    if (imp.state === "queued") {
      await listArchive(app, imp, zip);
    } else {
      await importBatch(app, account, imp, pendingPostImportItems(app.db, imp.id, BATCH), zip);
    }
  } catch (e) {
    if (e instanceof ArchiveRefused) return fail(e.message);
    throw e;
  } finally {
    zip.close();
  }
  if (pendingPostImportItems(app.db, imp.id, 1).length > 0) {
    app.jobs.enqueue(POST_IMPORT_JOB, { importId: imp.id });
    return;
  }
  finishPostImport(app.db, imp.id, app.now());
  await rm(path, { force: true });
}

async function listArchive(app: App, imp: PostImport, zip: ZipArchive): Promise<void> {
  const actor = (await readJsonEntry(zip, "actor.json")) as { followers?: unknown } | undefined;
  const followers = actor && typeof actor === "object" && typeof actor.followers === "string" ? actor.followers : null;
  const all = await readOutboxItems(zip);
  const items: { id: Id; published: number; sourceUri: string; data: string }[] = [];
  const skipped = { boosts: 0, other: 0 };
  // A slice at a time, letting requests in between: an outbox holds thousands of posts.
  for (let i = 0; i < all.length; i += LIST_SLICE) {
    const listing = listOutbox(all.slice(i, i + LIST_SLICE), followers);
    for (const n of listing.notes) items.push({ id: app.ids.next(), published: n.published, sourceUri: n.uri, data: JSON.stringify(n) });
    skipped.boosts += listing.boosts;
    skipped.other += listing.other;
    await new Promise((r) => setImmediate(r));
  }
  tx(app.db, () => startPostImportItems(app.db, imp.id, items, skipped));
}

/** A fresh id at the post's time (a taken one is drawn again: the low bits are random). */
function idFor(app: App, published: number): Id {
  const at = Math.min(published, app.now());
  let id = idAt(at);
  while (findStatusById(app.db, id)) id = idAt(at);
  return id;
}

/** Copies an attachment out of the ZIP into the staging area. */
async function extract(app: App, zip: ZipArchive, name: string): Promise<{ path: string; size: number } | string> {
  const entry = zip.entries.get(name);
  if (!entry) return "not in the archive";
  if (entry.uncompressedSize > app.config.maxMediaBytes) return "too large";
  await ensureStagingDir(app);
  const path = newStagedPath(app);
  try {
    await pipeline(await zip.open(entry), createWriteStream(path));
  } catch {
    await removeStaged([path]);
    return "could not be read";
  }
  return { path, size: entry.uncompressedSize };
}

async function importMedia(app: App, account: Account, note: ImportedNote, zip: ZipArchive, notes: string[]): Promise<Id[]> {
  const ids: Id[] = [];
  const max = app.config.maxMediaAttachments;
  if (note.attachments.length > max) notes.push(`${note.attachments.length - max} attachment(s) over the limit of ${max} left out`);
  for (const a of note.attachments.slice(0, max)) {
    const name = attachmentEntryName(a.url);
    const file = await extract(app, zip, name);
    if (typeof file === "string") {
      notes.push(`attachment ${name} left out: ${file}`);
      continue;
    }
    try {
      const description = a.description ? [...a.description].slice(0, MAX_DESCRIPTION_CHARS).join("") : undefined;
      const { media } = await uploadMedia(app, account, { file, description, focus: a.focus ?? undefined }, { waitMs: Infinity });
      ids.push(media.id);
    } catch (e) {
      if (!(e instanceof ApiError)) throw e;
      notes.push(`attachment ${name} left out: ${e.error.replace(/^Validation failed: /, "")}`);
    } finally {
      await removeStaged([file.path]);
    }
  }
  return ids;
}

/** The imported parent of a reply, when the archive brought it (or it is already this account's). */
function parentOf(app: App, account: Account, uri: string): Status | undefined {
  const imported = findImportedStatusId(app.db, account.id, uri);
  const parent = imported ? findStatusById(app.db, imported) : findStatusByUri(app.db, uri);
  return parent && parent.accountId === account.id ? parent : undefined;
}

/** Skips an item: nothing was made of it. */
const skipItem = (app: App, imp: PostImport, item: PostImportItem, why: string) => finishPostImportItem(app.db, imp.id, item.id, null, why);

/** Already imported, or this account's own post (our own archive imported back). */
function duplicateOf(app: App, account: Account, uri: string): string | undefined {
  const done = findImportedStatusId(app.db, account.id, uri);
  if (done && findStatusById(app.db, done)) return "Already imported";
  if (findStatusByUri(app.db, uri)?.accountId === account.id) return "Already a post of this account";
  return undefined;
}

/**
 * The work of one item outside the transaction (checks, media, text), then its write, which
 * runs with the batch's others in one transaction (one commit per batch, not per post). The
 * write looks for duplicates and the parent again: an earlier post of the batch may be either.
 */
async function prepareItem(app: App, account: Account, imp: PostImport, item: PostImportItem, zip: ZipArchive): Promise<(() => void) | undefined> {
  const note = item.data as unknown as ImportedNote;
  const skip = (why: string): undefined => {
    skipItem(app, imp, item, why);
  };
  const dup = duplicateOf(app, account, note.uri);
  if (dup) return skip(dup);
  if (note.text.length > MAX_IMPORTED_TEXT) return skip(`Longer than ${MAX_IMPORTED_TEXT} characters`);
  const refused = unusableTagNames(app.db, uniqueHashtags(note.text).map((t) => t.name));
  if (refused.length) return skip(`Uses a hashtag this server does not allow: ${refused.join(", ")}`);

  const notes: string[] = [];
  if (note.poll) notes.push("a poll: its options are not imported");
  let text = note.text;
  let spoilerText = note.summary;
  const media = await importMedia(app, account, note, zip, notes);
  // As createStatus: a post with only a content warning has the warning as its text.
  if (text === "" && spoilerText !== "") [text, spoilerText] = [spoilerText, ""];
  if (text === "" && media.length === 0) return skip(["Empty post", ...notes].join("; "));

  // Mentions of accounts this server knows become mentions; others stay text.
  const mentioned = canonicalizeMentions(text, app.config.domain, knownAccountResolver(app));
  text = mentioned.text;
  const mentions = deliverableMentions(app, account.id, mentioned.accounts);
  const content = formatStatusText(text, { baseUrl: app.baseUrl, localDomain: app.config.domain, mentions });
  return () => {
    const again = duplicateOf(app, account, note.uri);
    if (again) return skip(again);
    const parent = note.inReplyTo ? parentOf(app, account, note.inReplyTo) : undefined;
    if (note.inReplyTo && !parent) notes.unshift("a reply to a post outside the archive: imported as a plain post");
    const status = persistStatus(app, {
      id: idFor(app, note.published),
      createdAt: Math.min(note.published, app.now()),
      author: account,
      text,
      content,
      spoilerText,
      sensitive: note.sensitive,
      visibility: note.visibility === "public" && account.silencedAt !== null ? "unlisted" : note.visibility,
      language: note.language,
      inReplyTo: parent ?? null,
      applicationId: null,
      mentions,
      tags: uniqueHashtags(text),
      media,
      // Not sent to followers unless asked: no fan-out, streaming or federation.
      backfill: !imp.deliver,
      // An archive of thousands of posts must not become thousands of requests to the sites it links.
      crawlCard: false,
    });
    insertImportedStatus(app.db, account.id, note.uri, status.id);
    finishPostImportItem(app.db, imp.id, item.id, status.id, notes.length ? notes.join("; ") : null);
  };
}

/** One batch: prepared one by one, written in one transaction, each write in its own savepoint. */
async function importBatch(app: App, account: Account, imp: PostImport, items: PostImportItem[], zip: ZipArchive): Promise<void> {
  const writes: { item: PostImportItem; write: () => void }[] = [];
  for (const item of items) {
    const write = await prepareItem(app, account, imp, item, zip);
    if (write) writes.push({ item, write });
  }
  tx(app.db, () => {
    for (const { item, write } of writes) {
      try {
        savepoint(app.db, write);
      } catch (e) {
        if (!(e instanceof ApiError)) throw e;
        skipItem(app, imp, item, e.error);
      }
    }
  });
}
