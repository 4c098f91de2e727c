import { readFileSync } from "node:fs";
import { basename, extname } from "node:path";
import { unzipSync } from "fflate";
import * as tar from "tar";
import { CliError } from "./errors.ts";

/** One image of an emoji pack: its shortcode (the file's name) and bytes, or why it was passed over. */
export interface PackEntry {
  name: string;
  shortcode: string;
  data?: Buffer;
  /** Set when the entry was not read (too large): the reason. */
  error?: string;
}

const IMAGE_EXT = new Set([".png", ".gif", ".webp"]);
const CONTENT_TYPES: Record<string, string> = { ".png": "image/png", ".gif": "image/gif", ".webp": "image/webp" };

export const contentTypeOfName = (name: string) => CONTENT_TYPES[extname(name).toLowerCase()] ?? "application/octet-stream";

/**
 * Whether an archive member is an emoji image, as Mastodon's `tootctl emoji import` decides:
 * a .png or .gif (roost also takes .webp) file, not a macOS `._` shadow file; its shortcode is
 * the file's name without folder or extension.
 */
function emojiShortcode(path: string): string | undefined {
  const name = basename(path);
  const ext = extname(name).toLowerCase();
  if (!IMAGE_EXT.has(ext) || name.startsWith("._")) return undefined;
  return name.slice(0, -ext.length);
}

/**
 * The images of a .tar.gz (or .tgz, .tar) or .zip emoji pack, by the archive's bytes. Entries
 * larger than `maxBytes` are listed with an error and never inflated.
 */
export function readEmojiPack(path: string, maxBytes: number): PackEntry[] {
  let head: Buffer;
  try {
    head = readFileSync(path);
  } catch (e) {
    throw new CliError(`cannot read ${path}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
  }
  const tooLarge = `file size must be at most ${Math.round(maxBytes / 1024)} KB`;
  // "PK\x03\x04": a zip; otherwise tar (gzipped or not; tar detects it).
  if (head.length >= 4 && head.readUInt32LE(0) === 0x04034b50) {
    const out: PackEntry[] = [];
    let files: Record<string, Uint8Array>;
    try {
      files = unzipSync(head, {
        filter: (f) => {
          const shortcode = emojiShortcode(f.name);
          if (!shortcode) return false;
          if (f.originalSize > maxBytes) {
            out.push({ name: f.name, shortcode, error: tooLarge });
            return false;
          }
          return true;
        },
      });
    } catch (e) {
      throw new CliError(`${path} is not a readable zip archive: ${(e as Error).message}`);
    }
    for (const [name, data] of Object.entries(files)) out.push({ name, shortcode: emojiShortcode(name)!, data: Buffer.from(data) });
    return out.sort((a, b) => a.name.localeCompare(b.name));
  }
  const out: PackEntry[] = [];
  try {
    tar.list({
      file: path,
      sync: true,
      onReadEntry: (entry) => {
        const shortcode = entry.type === "File" ? emojiShortcode(entry.path) : undefined;
        if (!shortcode) return entry.resume();
        if (entry.size > maxBytes) {
          out.push({ name: entry.path, shortcode, error: tooLarge });
          return entry.resume();
        }
        const chunks: Buffer[] = [];
        entry.on("data", (c: Buffer) => chunks.push(c));
        entry.on("end", () => out.push({ name: entry.path, shortcode, data: Buffer.concat(chunks) }));
      },
    });
  } catch (e) {
    throw new CliError(`${path} is not a readable tar.gz or zip archive: ${(e as Error).message}`);
  }
  if (out.length === 0 && !looksLikeTar(head)) throw new CliError(`${path} is not a tar.gz or zip archive`);
  return out;
}

/** gzip magic, or "ustar" at offset 257 of a plain tar. */
function looksLikeTar(b: Buffer): boolean {
  return (b.length >= 2 && b[0] === 0x1f && b[1] === 0x8b) || (b.length >= 262 && b.subarray(257, 262).toString("latin1") === "ustar");
}
