import type { App } from "../app.ts";
import { unprocessable } from "../errors.ts";
import type { Id } from "../lib/ids.ts";
import { megabytes } from "../lib/sizes.ts";
import { Validation } from "../lib/validation.ts";
import { newMediaName, removeMediaFiles, stillName, writeMediaFile } from "../media/files.ts";
import { sniffImageFormat } from "../media/image-types.ts";
import type { Account } from "../storage/accounts.ts";
import type { ProfileImageResult } from "../workers/image-tasks.ts";

// Avatars and headers: checked here, resized in the worker pool (sharp), stored under
// media/accounts/{avatars,headers}/<account id>/<random>.<ext>.

export type ProfileImageKind = "avatar" | "header";

const SIZES: Record<ProfileImageKind, { width: number; height: number }> = {
  avatar: { width: 400, height: 400 },
  header: { width: 1500, height: 500 },
};

export interface StoredProfileImage {
  file: string;
  contentType: string;
  /** Written files, for clean-up if the profile update fails afterwards. */
  written: string[];
}


/** Adds Mastodon-style errors for a file that is too big or not a PNG/JPEG/GIF/WebP image. */
export async function readProfileImage(app: App, kind: ProfileImageKind, file: File, v: Validation): Promise<Uint8Array | undefined> {
  if (file.size > app.config.maxImageBytes) {
    v.add(kind, "ERR_INVALID", `file size must be less than ${megabytes(app.config.maxImageBytes)}`);
    return undefined;
  }
  const data = new Uint8Array(await file.arrayBuffer());
  if (data.length === 0 || !sniffImageFormat(data)) {
    v.add(kind, "ERR_INVALID", "content type is invalid");
    return undefined;
  }
  return data;
}

/** Resizes in the pool and writes the result; a file sharp cannot decode is a 422. */
export async function storeProfileImage(app: App, accountId: Id, kind: ProfileImageKind, data: Uint8Array): Promise<StoredProfileImage> {
  let result: ProfileImageResult;
  try {
    result = await app.pool.run<ProfileImageResult>("processProfileImage", { data, ...SIZES[kind] });
  } catch (err) {
    // sharp could not decode it (a truncated or disguised file): the client's fault.
    app.log.info("profile image rejected", { kind, err: err instanceof Error ? err.message : String(err) });
    const label = kind === "avatar" ? "Avatar" : "Header";
    throw unprocessable(`Validation failed: ${label} could not be processed`, {
      [kind]: [{ error: "ERR_INVALID", description: "could not be processed" }],
    });
  }
  const folder = `accounts/${kind}s/${accountId}`;
  const file = newMediaName(folder, result.main.ext);
  const written: string[] = [];
  try {
    await writeMediaFile(app, file, result.main.data);
    written.push(file);
    if (result.still) {
      const still = stillName(file, result.main.contentType)!;
      await writeMediaFile(app, still, result.still.data);
      written.push(still);
    }
  } catch (err) {
    await removeMediaFiles(app, written);
    throw err;
  }
  return { file, contentType: result.main.contentType, written };
}

/** Every stored file of an account's avatar or header (the image and its still). */
export function profileImageFiles(account: Account, kind: ProfileImageKind): string[] {
  const file = kind === "avatar" ? account.avatarFile : account.headerFile;
  const type = kind === "avatar" ? account.avatarContentType : account.headerContentType;
  if (!file) return [];
  const still = stillName(file, type);
  return still ? [file, still] : [file];
}
