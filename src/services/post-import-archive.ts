// Reading a Mastodon archive ZIP (Mastodon's BackupService layout, which our own export
// writes too: outbox.json, actor.json, likes.json, bookmarks.json, media files under the
// paths the outbox's attachments name). yauzl reads the central directory only, and an
// entry's bytes when asked: the archive is never held in memory, only outbox.json and
// actor.json are read whole (bounded). yauzl refuses `../` and absolute entry names; one
// such entry refuses the whole archive.
import type { Readable } from "node:stream";
import type yauzl from "yauzl";
import { unprocessable } from "../errors.ts";

/** The largest outbox.json read (it is parsed whole: 20,000 posts are some 60 MB). */
export const MAX_OUTBOX_BYTES = 256 * 1024 * 1024;
const MAX_ACTOR_BYTES = 1024 * 1024;
const MAX_ENTRIES = 200_000;

/** The whole archive is refused (the page shows the message). */
export class ArchiveRefused extends Error {}

export interface ZipArchive {
  /** Files by name (directories left out). */
  entries: Map<string, yauzl.Entry>;
  open(entry: yauzl.Entry): Promise<Readable>;
  close(): void;
}

function refusal(e: unknown): ArchiveRefused {
  const msg = e instanceof Error ? e.message : String(e);
  const unsafe = /^(invalid relative path|absolute path|invalid characters in fileName): (.*)$/s.exec(msg);
  if (unsafe) return new ArchiveRefused(`The archive was refused: it holds a file with an unsafe path (${unsafe[2].slice(0, 200)}).`);
  return new ArchiveRefused("The file is not a readable ZIP archive.");
}

/** Opens the ZIP and lists its entries; any unsafe entry name refuses the archive. */
export async function openZipArchive(path: string): Promise<ZipArchive> {
  const { default: yz } = await import("yauzl"); // loaded on first use (idle memory)
  let zip: yauzl.ZipFile;
  try {
    zip = await yz.openPromise(path, { lazyEntries: true, autoClose: false, decodeStrings: true, validateEntrySizes: true });
  } catch (e) {
    throw refusal(e);
  }
  const entries = new Map<string, yauzl.Entry>();
  try {
    for await (const entry of zip.eachEntry()) {
      if (entries.size >= MAX_ENTRIES) throw new ArchiveRefused(`The archive was refused: it holds more than ${MAX_ENTRIES} files.`);
      if (!entry.fileName.endsWith("/")) entries.set(entry.fileName, entry);
    }
  } catch (e) {
    zip.close();
    throw e instanceof ArchiveRefused ? e : refusal(e);
  }
  return {
    entries,
    open: (entry) => zip.openReadStreamPromise(entry),
    close: () => zip.close(),
  };
}

async function readEntry(zip: ZipArchive, name: string, max: number): Promise<Buffer | undefined> {
  const entry = zip.entries.get(name);
  if (!entry) return undefined;
  if (entry.uncompressedSize > max) throw new ArchiveRefused(`The archive was refused: ${name} is larger than ${Math.round(max / 1024 / 1024)} MB.`);
  const chunks: Buffer[] = [];
  try {
    for await (const chunk of await zip.open(entry)) chunks.push(chunk as Buffer);
  } catch {
    throw new ArchiveRefused(`The archive was refused: ${name} could not be read.`);
  }
  return Buffer.concat(chunks);
}

/** A JSON file of the archive, parsed; undefined when absent. */
export async function readJsonEntry(zip: ZipArchive, name: string, max = MAX_ACTOR_BYTES): Promise<unknown> {
  const buf = await readEntry(zip, name, max);
  if (buf === undefined) return undefined;
  try {
    return JSON.parse(buf.toString("utf8")) as unknown;
  } catch {
    throw new ArchiveRefused(`The archive was refused: ${name} is not valid JSON.`);
  }
}

/** The outbox's activities, or the archive refused (missing, malformed, not a collection). */
export async function readOutboxItems(zip: ZipArchive): Promise<unknown[]> {
  if (!zip.entries.has("outbox.json")) throw new ArchiveRefused("The archive was refused: it has no outbox.json (is it a Mastodon archive?).");
  const outbox = (await readJsonEntry(zip, "outbox.json", MAX_OUTBOX_BYTES)) as { orderedItems?: unknown } | null;
  if (!outbox || typeof outbox !== "object" || !Array.isArray(outbox.orderedItems)) {
    throw new ArchiveRefused("The archive was refused: outbox.json is not an ActivityStreams collection of posts.");
  }
  return outbox.orderedItems;
}

/**
 * The quick check made while the upload's request is still open: a ZIP, safe names, an
 * outbox.json. Answers 422 with the reason.
 */
export async function checkArchiveFile(path: string): Promise<void> {
  let zip: ZipArchive | undefined;
  try {
    zip = await openZipArchive(path);
    if (!zip.entries.has("outbox.json")) throw new ArchiveRefused("The archive was refused: it has no outbox.json (is it a Mastodon archive?).");
  } catch (e) {
    if (e instanceof ArchiveRefused) throw unprocessable(e.message);
    throw e;
  } finally {
    zip?.close();
  }
}

/** The archive entry an attachment's `url` names: Mastodon writes the stored path without /system/. */
export function attachmentEntryName(url: string): string {
  let path = url;
  if (/^https?:\/\//i.test(url)) {
    try {
      path = new URL(url).pathname;
    } catch {
      return url;
    }
    path = path.replace(/^\/system\//, "");
  }
  try {
    path = decodeURI(path);
  } catch {
    // kept as written
  }
  return path.replace(/^\.?\/+/, "");
}
