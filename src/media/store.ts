import { copyFile, mkdir, readFile, rename, rm } from "node:fs/promises";
import { dirname, join } from "node:path";
import type { App } from "../app.ts";
import { mediaUrl } from "../lib/urls.ts";
import { removeMediaFiles, resolveMediaPath, writeMediaFile } from "./files.ts";
import { s3MediaStore } from "./s3-store.ts";

/**
 * Where processed media files live. Processing always happens on local disk (the staging area,
 * media/staging.ts); a finished file is then handed to the store under its public name. The
 * default store is the data dir's media/ folder, served at /system/ (http/routes/media-files.ts);
 * the S3 store (media/s3-store.ts) keeps them in a bucket.
 */
export interface MediaStore {
  kind: "local" | "s3";
  /** Takes a finished local file and keeps it under `name`; the local file is gone afterwards. */
  putFile(name: string, localPath: string, contentType: string): Promise<void>;
  /** Keeps bytes made in memory (avatars, headers, emoji) under `name`. */
  putData(name: string, data: Uint8Array, contentType: string): Promise<void>;
  /** A stored file's bytes, undefined when it is not there (`roost media migrate`). */
  get(name: string): Promise<Uint8Array | undefined>;
  /** Removes stored files; missing ones are fine. Never throws (failures are logged). */
  remove(names: (string | null | undefined)[]): Promise<void>;
  /** The public URL of a stored file. */
  url(name: string): string;
}

/** The data dir's media/ folder. */
export function localMediaStore(app: App): MediaStore {
  return {
    kind: "local",
    async putFile(name, localPath) {
      const target = join(app.mediaDir, name);
      await mkdir(dirname(target), { recursive: true });
      try {
        await rename(localPath, target);
      } catch (err) {
        // The staging area on another file system: copy, then drop the staged file.
        if ((err as NodeJS.ErrnoException).code !== "EXDEV") throw err;
        await copyFile(localPath, target);
        await rm(localPath, { force: true });
      }
    },
    putData: (name, data) => writeMediaFile(app, name, data),
    async get(name) {
      const full = resolveMediaPath(app, name);
      if (!full) return undefined;
      try {
        return await readFile(full);
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code === "ENOENT") return undefined;
        throw err;
      }
    },
    remove: (names) => removeMediaFiles(app, names),
    url: (name) => mediaUrl(app.baseUrl, name),
  };
}

const STORE = "media:store";

/** The configured store (`mediaStorage`), made once per app. */
export function mediaStore(app: App): MediaStore {
  let store = app.cache.get(STORE) as MediaStore | undefined;
  if (!store || store.kind !== app.config.mediaStorage) app.cache.set(STORE, (store = app.config.mediaStorage === "s3" ? s3MediaStore(app) : localMediaStore(app)));
  return store;
}
