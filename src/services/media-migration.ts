import type { App } from "../app.ts";
import { contentTypeFor, stillName } from "../media/files.ts";
import { s3MediaStore } from "../media/s3-store.ts";
import { localMediaStore, type MediaStore } from "../media/store.ts";
import { emojiStaticFile } from "../media/emoji-images.ts";
import { listStoredMediaRefs } from "../storage/stored-media.ts";

// `roost media migrate --to s3|local`: copies every file the database names from the other
// store into the target, then removes the copies left behind. Names do not change (both stores
// key files by the same relative name), so no row is rewritten: once `mediaStorage` names the
// target, every URL points there.

export type StorageKind = "local" | "s3";

export interface MigrationProgress {
  done: number;
  total: number;
}

export interface MigrationResult {
  /** Files copied into the target. */
  copied: number;
  /** Already in the target (an earlier, interrupted run), not copied again. */
  present: number;
  /** Named by the database but in neither store. */
  missing: string[];
}

export function storeOfKind(app: App, kind: StorageKind): MediaStore {
  return kind === "s3" ? s3MediaStore(app) : localMediaStore(app);
}

/** Every stored name with its content type, companions included, each once. */
export function storedMediaNames(app: App): Map<string, string> {
  const names = new Map<string, string>();
  for (const ref of listStoredMediaRefs(app.db)) {
    names.set(ref.file, ref.contentType ?? contentTypeFor(ref.file));
    const still = stillName(ref.file, ref.contentType);
    if (still) names.set(still, "image/png");
    if (ref.emoji) names.set(emojiStaticFile(ref.file), "image/png");
  }
  return names;
}

/**
 * Copies everything to `to`, then removes the sources. A failure to write stops the run before
 * anything is removed (running it again resumes: files already in the target are kept).
 */
export async function migrateMedia(app: App, to: StorageKind, onProgress?: (p: MigrationProgress) => void): Promise<MigrationResult> {
  const source = storeOfKind(app, to === "s3" ? "local" : "s3");
  const target = storeOfKind(app, to);
  const names = storedMediaNames(app);
  const result: MigrationResult = { copied: 0, present: 0, missing: [] };
  const moved: string[] = [];
  let done = 0;
  onProgress?.({ done, total: names.size });
  for (const [name, contentType] of names) {
    const data = await source.get(name);
    if (data) {
      await target.putData(name, data, contentType);
      result.copied++;
      moved.push(name);
    } else if (await target.get(name)) {
      result.present++;
    } else {
      result.missing.push(name);
    }
    onProgress?.({ done: ++done, total: names.size });
  }
  await source.remove(moved);
  return result;
}
