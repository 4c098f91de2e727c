// "Request your archive" (Mastodon's BackupService and Backup model): a job writes a ZIP of
// actor.json, outbox.json (every post as its ActivityPub Create, every boost as Announce, from
// the federation serializers), likes.json, bookmarks.json, the media files and the avatar and
// header, in Mastodon's archive layout. The ZIP is streamed to disk with yazl: outbox.json is
// produced page by page and media files are read as the ZIP is written, so memory stays flat
// whatever the account's size. One request per week; archives are removed after a week.
import { mkdir, rm, stat } from "node:fs/promises";
import { extname, join } from "node:path";
import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import type yazl from "yazl";
import type { App } from "../app.ts";
import { ApiError } from "../errors.ts";
import type { Id } from "../lib/ids.ts";
import { randomToken } from "../lib/crypto.ts";
import { BufferPool, pooledFileSink, pooledFileStream } from "../lib/recycled-buffers.ts";
import { type Account, findAccountByHandle, findAccountById } from "../storage/accounts.ts";
import type { Status } from "../storage/statuses.ts";
import {
  type AccountArchive,
  deleteAccountArchive,
  findAccountArchive,
  insertAccountArchive,
  iterateFavouritedUris,
  listAccountArchives,
  listArchivesCreatedBefore,
  listOwnMediaFiles,
  markArchiveWritten,
  pageOwnStatuses,
} from "../storage/account-archives.ts";
import { iterateBookmarkUris } from "../storage/csv-export.ts";
import { mediaStore } from "../media/store.ts";
import { resolveMediaPath } from "../media/files.ts";
import { enqueueMail } from "../mail/queue.ts";
import { archiveReadyMail } from "../mail/messages.ts";
import { findUserByAccountId } from "../storage/users.ts";

export type { AccountArchive };
export const ARCHIVE_JOB = "archive.build";
export const ARCHIVE_CLEANUP_TASK = "archive.cleanup";
export const ARCHIVE_INTERVAL_MS = 7 * 86_400_000;
// Posts rendered per outbox page. Small on purpose: with 500 a page's statuses, activities and
// strings outlived V8's young-generation collections, so the new space grew to its maximum and
// each page's bytes were promoted: the server's RSS grew 90 MB for 20,000 posts (no media), 39
// with 50, 34 with 20 (bench/scenarios/archive.ts, with 200 MB of media), and ran faster too.
const PAGE = 20;
// Media is copied through 8 reused 64 KB buffers (lib/recycled-buffers.ts).
const CHUNK = 64 * 1024;
const CHUNKS = 8;

export const archivesDir = (app: App) => join(app.config.dataDir, "archives");

/** Starts an archive unless one was asked for in the last 7 days (Mastodon's BackupPolicy). */
export function requestArchive(app: App, account: Account): AccountArchive {
  const last = listAccountArchives(app.db, account.id)[0];
  if (last && last.createdAt > app.now() - ARCHIVE_INTERVAL_MS) throw new ApiError(422, "You can request an archive once every 7 days");
  const id = app.ids.next();
  app.db.transaction(() => {
    insertAccountArchive(app.db, { id, accountId: account.id, createdAt: app.now() });
    app.jobs.enqueue(ARCHIVE_JOB, { archiveId: id });
  }).immediate();
  return findAccountArchive(app.db, id)!;
}

/**
 * `roost user archive USERNAME`: a record for an archive the CLI builds at once (the operator
 * is not held to the weekly limit); undefined for an unknown local user.
 */
export function startOperatorArchive(app: App, username: string): AccountArchive | undefined {
  const account = findAccountByHandle(app.db, username, null);
  if (!account) return undefined;
  const id = app.ids.next();
  insertAccountArchive(app.db, { id, accountId: account.id, createdAt: app.now() });
  return findAccountArchive(app.db, id)!;
}

export function archivesOf(app: App, account: Account): AccountArchive[] {
  return listAccountArchives(app.db, account.id);
}

/** The file of the owner's written archive, or 404. */
export function requireArchiveFile(app: App, account: Pick<Account, "id">, id: Id): { path: string; name: string; size: number } {
  const a = /^\d{1,20}$/.test(id) ? findAccountArchive(app.db, id) : undefined;
  if (!a || a.accountId !== account.id || !a.file) throw new ApiError(404, "Record not found");
  return { path: join(archivesDir(app), a.file), name: a.file, size: a.size ?? 0 };
}

function collection(id: string, total: number): string {
  return `{"@context":"https://www.w3.org/ns/activitystreams","id":"${id}","type":"OrderedCollection","totalItems":${total},"orderedItems":[`;
}

/**
 * The federation serializers the archive reuses; the job handler passes them in (services do
 * not reach into federation/, see test/unit/layering.test.ts).
 */
export interface ArchiveRenderers {
  actor: (app: App, account: Account) => Record<string, unknown>;
  activities: (app: App, statuses: Status[]) => Record<string, unknown>[];
}

/**
 * outbox.json, written one page of statuses at a time, as bytes so that the stream reads one
 * page ahead (16 KB) rather than 16 (an object-mode stream's read-ahead).
 */
async function* outboxJson(app: App, account: Account, mediaPrefix: string, render: ArchiveRenderers): AsyncGenerator<Buffer> {
  yield Buffer.from(collection("outbox.json", account.statusesCount));
  let after: Id = "0";
  let first = true;
  for (;;) {
    const page = pageOwnStatuses(app.db, account.id, after, PAGE);
    if (page.length === 0) break;
    after = page[page.length - 1].id;
    const parts: string[] = [];
    for (const item of render.activities(app, page)) {
      // As Mastodon: attachments point into the archive (the stored file's path), not at us.
      const object = item.object as { attachment?: { url?: string }[] } | undefined;
      if (item.type === "Create" && object?.attachment) {
        for (const att of object.attachment) if (att.url?.startsWith(mediaPrefix)) att.url = att.url.slice(mediaPrefix.length);
      }
      parts.push(JSON.stringify(item));
    }
    if (parts.length) {
      yield Buffer.from((first ? "" : ",") + parts.join(","));
      first = false;
    }
    await new Promise((r) => setImmediate(r)); // let requests in between pages
  }
  yield Buffer.from("]}");
}

function uriCollection(id: string, rows: Iterable<{ uri?: unknown }>): string {
  const uris = [...rows].map((r) => String(r.uri));
  return `${collection(id, uris.length)}${uris.map((u) => JSON.stringify(u)).join(",")}]}`;
}

/** One archive being written: the ZIP, the media read buffers and the remote-file turn. */
interface ArchiveWriter {
  zip: yazl.ZipFile;
  pool: BufferPool;
  /** Settles when yazl has taken the last remote file queued (or the write failed). */
  remoteTaken: Promise<unknown>;
  /** The ZIP's write to disk; rejects on any failure. */
  done: Promise<void>;
}

/**
 * Queues a stored file as a ZIP entry, stored uncompressed (media is compressed already, and the
 * pooled chunks must reach the file sink unchanged). Local files are read only when yazl reaches
 * their entry, through the pool's buffers; a remote store's file is fetched once yazl has taken
 * the previous one, so at most two are in memory.
 */
async function addStoredFile(app: App, w: ArchiveWriter, name: string, entry: string): Promise<void> {
  const store = mediaStore(app);
  if (store.kind === "local") {
    const full = resolveMediaPath(app, name);
    if (!full) return;
    let size: number;
    try {
      const st = await stat(full);
      if (!st.isFile()) return;
      size = st.size;
    } catch {
      return; // a file gone from disk is left out, as Mastodon does
    }
    w.zip.addReadStreamLazy(entry, { compress: false, size }, (cb) => cb(null, pooledFileStream(full, w.pool)));
    return;
  }
  await Promise.race([w.remoteTaken, w.done]);
  const data = await store.get(name);
  if (!data) return;
  let taken!: () => void;
  w.remoteTaken = new Promise<void>((resolve) => (taken = resolve));
  w.zip.addReadStreamLazy(entry, { compress: false, size: data.length }, (cb) => {
    taken();
    cb(null, Readable.from([Buffer.from(data.buffer, data.byteOffset, data.length)], { objectMode: false }));
  });
}

/** The job: writes the ZIP to archives/<random>.zip and records it. */
export async function buildArchive(app: App, payload: { archiveId?: string; notify?: boolean }, render: ArchiveRenderers): Promise<void> {
  const archive = payload.archiveId ? findAccountArchive(app.db, payload.archiveId) : undefined;
  if (!archive || archive.file) return;
  const account = findAccountById(app.db, archive.accountId);
  if (!account) return;
  const dir = archivesDir(app);
  await mkdir(dir, { recursive: true });
  const stamp = new Date(app.now()).toISOString().replace(/\D/g, "").slice(0, 14);
  const file = `archive-${stamp}-${randomToken(16).replace(/[^A-Za-z0-9]/g, "")}.zip`;
  const path = join(dir, file);
  const { ZipFile } = (await import("yazl")).default; // loaded on first use (idle memory)
  const zip = new ZipFile();
  const pool = new BufferPool(CHUNK, CHUNKS);
  const out = zip.outputStream as Readable; // a PassThrough (yazl's types say ReadableStream)
  const done = pipeline(out, pooledFileSink(path, pool));
  done.catch(() => {}); // awaited below; this only keeps an early failure from going unhandled
  zip.on("error", (e: Error) => out.destroy(e)); // a bad entry fails the write
  const w: ArchiveWriter = { zip, pool, remoteTaken: Promise.resolve(), done };
  const prefix = mediaStore(app).url("");
  try {
    const actor = render.actor(app, account) as Record<string, unknown> & { icon?: { url: string }; image?: { url: string } };
    if (account.avatarFile && actor.icon) {
      actor.icon.url = `avatar${extname(account.avatarFile)}`;
      await addStoredFile(app, w, account.avatarFile, actor.icon.url);
    }
    if (account.headerFile && actor.image) {
      actor.image.url = `header${extname(account.headerFile)}`;
      await addStoredFile(app, w, account.headerFile, actor.image.url);
    }
    Object.assign(actor, { outbox: "outbox.json", likes: "likes.json", bookmarks: "bookmarks.json" });
    zip.addBuffer(Buffer.from(JSON.stringify(actor)), "actor.json");
    zip.addReadStream(Readable.from(outboxJson(app, account, prefix, render), { objectMode: false }), "outbox.json");
    zip.addBuffer(Buffer.from(uriCollection("likes.json", iterateFavouritedUris(app.db, account.id))), "likes.json");
    zip.addBuffer(Buffer.from(uriCollection("bookmarks.json", iterateBookmarkUris(app.db, account.id))), "bookmarks.json");
    for (const name of listOwnMediaFiles(app.db, account.id)) await addStoredFile(app, w, name, name);
    zip.end();
    await done;
  } catch (e) {
    out.destroy();
    await done.catch(() => {});
    await rm(path, { force: true });
    throw e;
  }
  const size = (await stat(path)).size;
  const user = findUserByAccountId(app.db, account.id);
  app.db.transaction(() => {
    markArchiveWritten(app.db, archive.id, file, size, app.now());
    if (user && payload.notify !== false) enqueueMail(app, archiveReadyMail(app, user.email, account.username));
  }).immediate();
}

/** Periodic: archives older than a week go, file and record. */
export async function cleanupArchives(app: App): Promise<void> {
  for (const a of listArchivesCreatedBefore(app.db, app.now() - ARCHIVE_INTERVAL_MS)) {
    if (a.file) await rm(join(archivesDir(app), a.file), { force: true });
    deleteAccountArchive(app.db, a.id);
  }
}
