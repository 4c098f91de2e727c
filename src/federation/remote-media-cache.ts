import { writeFile } from "node:fs/promises";
import type { App } from "../app.ts";
import { tx } from "../db/db.ts";
import { FetchError, safeFetch } from "./net/safe-fetch.ts";
import { mediaRejected } from "./remote-media.ts";
import { randomToken } from "../lib/crypto.ts";
import type { Id } from "../lib/ids.ts";
import { stillName } from "../media/files.ts";
import { sniffImageFormat } from "../media/image-types.ts";
import { ensureStagingDir, newStagedPath, removeStaged } from "../media/staging.ts";
import { mediaStore } from "../media/store.ts";

export { CACHE_ACCOUNT_IMAGES_JOB, CACHE_STATUS_MEDIA_JOB, REMOTE_MEDIA_QUEUE } from "../media/remote-cache-jobs.ts";
import { sniffUploadType } from "../media/upload-types.ts";
import { type Account, findAccountById } from "../storage/accounts.ts";
import { findMediaByStatusIds, type MediaAttachment } from "../storage/media-attachments.ts";
import { findMediaById } from "../storage/media-uploads.ts";
import {
  type CacheEntry,
  type CachedAttachment,
  dropCacheEntry,
  findCacheEntry,
  insertCacheEntry,
  showCachedAttachment,
  showCachedProfileImage,
} from "../storage/remote-media-cache.ts";
import type { ProfileImageResult } from "../workers/image-tasks.ts";
import type { MediaImageResult, StagedImage, ThumbnailResult } from "../workers/media-tasks.ts";
import { type AvProcessor, copiesAvFile, fetchRemoteAvFile } from "./remote-av-files.ts";

// Local copies of remote media (issue 10 part 6), made by jobs (media/remote-cache-jobs.ts)
// so that clients never hot-link other servers. The file is fetched with the federation's safe
// fetch (no private addresses, size and time limits), checked from its bytes, and processed by
// the same image worker tasks as uploads (metadata stripped, previews, blurhash). Copies live in
// the media store under cache/ and are listed in remote_media_cache for pruning
// (services/remote-media-prune.ts). A file that cannot be fetched or decoded is left at its
// origin: the entity keeps showing remote_url.

const FETCH_TIMEOUT_MS = 30_000;

/** Fetches a remote file; undefined (logged by safeFetch) when it is unreachable, refused or too big. */
async function download(app: App, url: string): Promise<Buffer | undefined> {
  try {
    const res = await safeFetch(app, url, { maxBytes: app.config.maxImageBytes, timeoutMs: FETCH_TIMEOUT_MS, headers: { accept: "image/*" } });
    if (res.status !== 200 || res.body.length === 0) {
      app.log.info("remote media not cached", { url, status: res.status });
      return undefined;
    }
    return res.body;
  } catch (err) {
    if (err instanceof FetchError) return undefined;
    throw err;
  }
}

/** Runs an image task on a downloaded file in the staging area; the input is removed after. */
async function withStaged<T>(app: App, data: Buffer, fn: (input: string, outputPrefix: string) => Promise<T>): Promise<T> {
  await ensureStagingDir(app);
  const input = newStagedPath(app);
  await writeFile(input, data);
  try {
    return await fn(input, `${input}-`);
  } finally {
    await removeStaged([input]);
  }
}

const ext = (p: string) => p.slice(p.lastIndexOf(".") + 1);

/** Stores staged files under their names; on failure removes what was stored and staged, and rethrows. */
async function storeAll(app: App, items: { name: string; staged: StagedImage }[]): Promise<void> {
  const store = mediaStore(app);
  try {
    for (const { name, staged } of items) await store.putFile(name, staged.path, staged.contentType);
  } catch (err) {
    await store.remove(items.map((i) => i.name));
    await removeStaged(items.map((i) => i.staged.path));
    throw err;
  }
}

/** The remote preview (`icon`) of a video or audio attachment: 640x360 JPEG and blurhash. */
async function fetchRemotePreview(app: App, url: string): Promise<Extract<ThumbnailResult, { ok: true }> | undefined> {
  const data = await download(app, url);
  if (!data || !sniffUploadType(data)) return undefined;
  const r = await withStaged(app, data, (input, outputPrefix) => app.pool.run<ThumbnailResult>("processMediaThumbnail", { input, outputPrefix }));
  return r.ok ? r : undefined;
}

/**
 * Copies one remote attachment: an image whole (original and small preview); a video, gifv or
 * audio file whole too (processed as an upload, with its poster frame) when ffmpeg is on and
 * `av` is given, and its remote preview if it has one. When the file cannot be copied (too
 * large, unreachable, refused) its preview still is: the file is then played from its origin,
 * as Mastodon shows a remote file it did not download. True when a copy is shown.
 */
export async function cacheRemoteAttachment(app: App, m: MediaAttachment, av?: AvProcessor): Promise<boolean> {
  if (!m.remoteUrl || m.file || m.thumbnailFile) return false;
  const folder = `cache/media_attachments/${randomToken(12)}`;
  let show: CachedAttachment;
  let items: { name: string; staged: StagedImage }[];
  let source: string;
  if (m.type === "image") {
    source = m.remoteUrl;
    const data = await download(app, source);
    if (!data || !sniffUploadType(data)) return false;
    const r = await withStaged(app, data, (input, outputPrefix) => app.pool.run<MediaImageResult>("processMediaImage", { input, outputPrefix }));
    if (!r.ok) return false;
    items = [
      { name: `${folder}/original.${ext(r.original.path)}`, staged: r.original },
      { name: `${folder}/small.${ext(r.small.path)}`, staged: r.small },
    ];
    show = {
      id: m.id,
      sourceUrl: m.remoteUrl,
      file: items[0].name,
      smallFile: items[1].name,
      thumbnailFile: null,
      fileSize: r.original.size,
      blurhash: r.blurhash,
      small: { width: r.small.width, height: r.small.height },
    };
  } else {
    const file = copiesAvFile(app, m, av) ? await fetchRemoteAvFile(app, m, av) : undefined;
    const preview = m.thumbnailRemoteUrl ? await fetchRemotePreview(app, m.thumbnailRemoteUrl) : undefined;
    if (!file && !preview) return false;
    // The first file is what the entity shows (SHOWN in storage/remote-media-cache.ts).
    items = [];
    if (file) items.push({ name: `${folder}/original.${ext(file.original.path)}`, staged: file.original });
    if (file?.small) items.push({ name: `${folder}/small.${ext(file.small.path)}`, staged: file.small });
    if (preview) items.push({ name: `${folder}/thumbnail.jpg`, staged: preview.thumbnail });
    const name = (staged: StagedImage | null | undefined) => items.find((i) => i.staged === staged)?.name ?? null;
    // As Mastodon's meta: the author's preview, when there is one, is what `small` describes.
    const small = preview?.thumbnail ?? file?.small ?? null;
    show = {
      id: m.id,
      sourceUrl: m.remoteUrl,
      file: name(file?.original),
      smallFile: name(file?.small),
      thumbnailFile: name(preview?.thumbnail),
      fileSize: file?.original.size ?? null,
      blurhash: preview?.blurhash ?? file?.blurhash ?? null,
      small: small ? { width: small.width, height: small.height } : null,
      ...(file ? { type: file.type, original: file.meta.original } : {}),
    };
    source = file ? m.remoteUrl : m.thumbnailRemoteUrl!;
  }
  await storeAll(app, items);
  const files = items.map((i) => i.name);
  const bytes = items.reduce((n, i) => n + i.staged.size, 0);
  const entry: CacheEntry = { kind: "attachment", ownerId: m.id, sourceUrl: source, files, bytes, cachedAt: app.now() };
  const shown = tx(app.db, () => {
    if (!showCachedAttachment(app.db, show)) return false;
    insertCacheEntry(app.db, entry);
    return true;
  });
  // The row changed meanwhile (deleted, edited away, copied by another run): nothing shows these.
  if (!shown) await mediaStore(app).remove(files);
  return shown;
}

/**
 * Copies the current attachments of a remote status that have no copy yet; video and audio
 * files only with `av`, the upload processor (the job passes it).
 */
export async function cacheStatusMedia(app: App, statusId: Id, av?: AvProcessor): Promise<number> {
  const media = findMediaByStatusIds(app.db, [statusId]).get(statusId) ?? [];
  const author = media.length ? findAccountById(app.db, media[0].accountId) : undefined;
  if (!author || author.domain === null || author.suspendedAt !== null || mediaRejected(app, author)) return 0;
  let copied = 0;
  for (const m of media) {
    // Re-read: an earlier copy of this status may have taken long.
    const row = findMediaById(app.db, m.id);
    if (row && (await cacheRemoteAttachment(app, row, av))) copied++;
  }
  return copied;
}

const PROFILE_SIZES = { avatar: { width: 400, height: 400 }, header: { width: 1500, height: 500 } } as const;

/** Copies a remote account's avatar or header (resized as local ones). True when a copy is shown. */
export async function cacheProfileImage(app: App, account: Account, kind: "avatar" | "header"): Promise<boolean> {
  const source = kind === "avatar" ? account.avatarRemoteUrl : account.headerRemoteUrl;
  const current = kind === "avatar" ? account.avatarFile : account.headerFile;
  if (account.domain === null || !source || current) return false;
  // A copy of the image the account showed before: it is replaced.
  const old = findCacheEntry(app.db, kind, account.id);
  if (old) {
    tx(app.db, () => dropCacheEntry(app.db, old));
    await mediaStore(app).remove(old.files);
  }
  const data = await download(app, source);
  if (!data || !sniffImageFormat(data)) return false;
  let result: ProfileImageResult;
  try {
    result = await app.pool.run<ProfileImageResult>("processProfileImage", { data: new Uint8Array(data), ...PROFILE_SIZES[kind] });
  } catch (err) {
    app.log.info("remote profile image not cached", { url: source, err: err instanceof Error ? err.message : String(err) });
    return false;
  }
  const store = mediaStore(app);
  const file = `cache/accounts/${kind}s/${account.id}/${randomToken(12)}.${result.main.ext}`;
  const files = [file];
  try {
    await store.putData(file, result.main.data, result.main.contentType);
    if (result.still) {
      const still = stillName(file, result.main.contentType)!;
      files.push(still);
      await store.putData(still, result.still.data, result.still.contentType);
    }
  } catch (err) {
    await store.remove(files);
    throw err;
  }
  const bytes = result.main.data.length + (result.still?.data.length ?? 0);
  const shown = tx(app.db, () => {
    if (!showCachedProfileImage(app.db, { kind, accountId: account.id, sourceUrl: source, file, contentType: result.main.contentType })) return false;
    insertCacheEntry(app.db, { kind, ownerId: account.id, sourceUrl: source, files, bytes, cachedAt: app.now() });
    return true;
  });
  if (!shown) await store.remove(files);
  return shown;
}

/** Copies a remote account's avatar and header where it has none yet. */
export async function cacheAccountImages(app: App, accountId: Id): Promise<number> {
  const account = findAccountById(app.db, accountId);
  if (!account || account.domain === null || account.suspendedAt !== null || mediaRejected(app, account)) return 0;
  let copied = 0;
  for (const kind of ["avatar", "header"] as const) {
    const fresh = findAccountById(app.db, accountId);
    if (fresh && (await cacheProfileImage(app, fresh, kind))) copied++;
  }
  return copied;
}
