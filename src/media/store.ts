import { copyFile, mkdir, rename, rm } from "node:fs/promises";
import { dirname, join } from "node:path";
import type { App } from "../app.ts";
import { mediaUrl } from "../lib/urls.ts";
import { removeMediaFiles } from "./files.ts";

/**
 * Where processed media files live. Processing always happens on local disk (the staging area,
 * media/staging.ts); a finished file is then handed to the store under its public name. The
 * default store is the data dir's media/ folder, served at /system/ (http/routes/media-files.ts);
 * an object-storage backend implements the same three calls.
 */
export interface MediaStore {
  /** Takes a finished local file and keeps it under `name`; the local file is gone afterwards. */
  putFile(name: string, localPath: string, contentType: string): Promise<void>;
  /** Removes stored files; missing ones are fine. Never throws (failures are logged). */
  remove(names: (string | null | undefined)[]): Promise<void>;
  /** The public URL of a stored file. */
  url(name: string): string;
}

/** The data dir's media/ folder. */
export function localMediaStore(app: App): MediaStore {
  return {
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
    remove: (names) => removeMediaFiles(app, names),
    url: (name) => mediaUrl(app.baseUrl, name),
  };
}

/** The configured store (only the local one so far). */
export function mediaStore(app: App): MediaStore {
  return localMediaStore(app);
}
