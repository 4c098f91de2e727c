// Files for the media tests, made on the spot with sharp and zlib (nothing is checked in), and
// the calls and disk checks those tests share.
import { readdirSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import { crc32, deflateSync } from "node:zlib";
import sharp, { type Metadata } from "sharp";
import type { Res, TestServer, TestUser } from "../helpers/server.ts";

/** A JPEG as a phone takes it: stored sideways with EXIF orientation 6 and GPS tags. */
export async function phoneJpeg(width = 400, height = 200): Promise<Buffer> {
  // The left quarter blue, the rest red: after orientation 6 (90° clockwise) blue is on top.
  const blue = { create: { width: width / 4, height, channels: 3 as const, background: { r: 0, g: 0, b: 255 } } };
  return sharp({ create: { width, height, channels: 3, background: { r: 255, g: 0, b: 0 } } })
    .composite([{ input: blue, left: 0, top: 0 }])
    .jpeg({ quality: 90 })
    .withMetadata({ orientation: 6 })
    .withExifMerge({
      IFD0: { Make: "RoostPhone", Model: "Test 1" },
      IFD3: { GPSLatitudeRef: "N", GPSLatitude: "48/1 51/1 2400/100", GPSLongitudeRef: "E", GPSLongitude: "2/1 21/1 0/1" },
    })
    .toBuffer();
}

export const pngWithAlpha = (width = 120, height = 80) =>
  sharp({ create: { width, height, channels: 4, background: { r: 20, g: 120, b: 60, alpha: 0.4 } } }).png().toBuffer();

export const webp = (width = 90, height = 60) => sharp({ create: { width, height, channels: 3, background: "#884422" } }).webp().toBuffer();

export const avif = (width = 64, height = 48) => sharp({ create: { width, height, channels: 3, background: "#2266cc" } }).avif().toBuffer();

/** A three-frame animated GIF. */
export async function animatedGif(width = 64, height = 48): Promise<Buffer> {
  const frames = await Promise.all(
    ["#ff0000", "#00ff00", "#0000ff"].map((c) => sharp({ create: { width, height, channels: 4, background: c } }).png().toBuffer()),
  );
  return sharp(frames, { join: { animated: true } }).gif({ delay: [100, 100, 100], loop: 0 }).toBuffer();
}

/** JPEG noise: does not compress, so its size is about `bytes`. */
export async function noisyJpeg(bytes: number): Promise<Buffer> {
  const side = Math.ceil(Math.sqrt(bytes / 1.2));
  return sharp({ create: { width: side, height: side, channels: 3, background: "#808080", noise: { type: "gaussian", mean: 128, sigma: 60 } } })
    .jpeg({ quality: 100 })
    .toBuffer();
}

function pngChunk(type: string, data: Buffer): Buffer {
  const out = Buffer.alloc(12 + data.length);
  out.writeUInt32BE(data.length, 0);
  out.write(type, 4, "ascii");
  data.copy(out, 8);
  out.writeUInt32BE(crc32(out.subarray(4, 8 + data.length)), 8 + data.length);
  return out;
}

/**
 * A decompression bomb: a valid 30,000 x 30,000 one-bit PNG of ~110 KB that decodes to 900
 * million pixels.
 */
export function pixelBomb(side = 30_000): Buffer {
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(side, 0);
  ihdr.writeUInt32BE(side, 4);
  ihdr[8] = 1; // bit depth
  ihdr[9] = 0; // greyscale
  const rows = Buffer.alloc((1 + Math.ceil(side / 8)) * side); // filter byte + bits, all zero
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    pngChunk("IHDR", ihdr),
    pngChunk("IDAT", deflateSync(rows, { level: 9 })),
    pngChunk("IEND", Buffer.alloc(0)),
  ]);
}

/** A valid ZIP archive holding one stored file. */
export function zipFile(name = "photo.jpg", content = Buffer.from("not really a photo")): Buffer {
  const fileName = Buffer.from(name);
  const crc = crc32(content);
  const local = Buffer.alloc(30);
  local.writeUInt32LE(0x04034b50, 0);
  local.writeUInt16LE(10, 4); // version needed
  local.writeUInt32LE(crc, 14);
  local.writeUInt32LE(content.length, 18);
  local.writeUInt32LE(content.length, 22);
  local.writeUInt16LE(fileName.length, 26);
  const central = Buffer.alloc(46);
  central.writeUInt32LE(0x02014b50, 0);
  central.writeUInt16LE(20, 4);
  central.writeUInt16LE(10, 6);
  central.writeUInt32LE(crc, 16);
  central.writeUInt32LE(content.length, 20);
  central.writeUInt32LE(content.length, 24);
  central.writeUInt16LE(fileName.length, 28);
  const centralOffset = local.length + fileName.length + content.length;
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(1, 8);
  end.writeUInt16LE(1, 10);
  end.writeUInt32LE(central.length + fileName.length, 12);
  end.writeUInt32LE(centralOffset, 16);
  return Buffer.concat([local, fileName, content, central, fileName, end]);
}

export const svgWithScript = () =>
  Buffer.from('<?xml version="1.0"?><svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"><script>alert(document.cookie)</script><rect width="10" height="10"/></svg>');

export function fileForm(data: Uint8Array, name: string, type: string, fields: Record<string, string> = {}, field = "file"): FormData {
  const f = new FormData();
  f.append(field, new Blob([new Uint8Array(data)], { type }), name);
  for (const [k, v] of Object.entries(fields)) f.append(k, v);
  return f;
}

export function upload(s: TestServer, who: TestUser, data: Uint8Array, opts: { name?: string; type?: string; fields?: Record<string, string>; version?: 1 | 2 } = {}): Promise<Res> {
  return s.req(who, "POST", `/api/v${opts.version ?? 2}/media`, fileForm(data, opts.name ?? "upload.bin", opts.type ?? "application/octet-stream", opts.fields));
}

/** Every file under a directory, relative to it ([] when it does not exist). */
export function filesUnder(dir: string): string[] {
  const out: string[] = [];
  const walk = (d: string) => {
    let names: string[];
    try {
      names = readdirSync(d);
    } catch {
      return;
    }
    for (const n of names) {
      const p = join(d, n);
      if (statSync(p).isDirectory()) walk(p);
      else out.push(relative(dir, p));
    }
  };
  walk(dir);
  return out.sort();
}

/** Stored media files and staged uploads of a test server. */
export function mediaOnDisk(s: TestServer): { stored: string[]; staged: string[] } {
  return {
    stored: filesUnder(join(s.dataDir, "media", "media_attachments")),
    staged: filesUnder(join(s.dataDir, "tmp", "media")),
  };
}

/** Fetches a served file and reads it with sharp. */
export async function fetchImage(url: string): Promise<{ res: Response; bytes: Buffer; meta: Metadata }> {
  const res = await fetch(url);
  const bytes = Buffer.from(await res.arrayBuffer());
  return { res, bytes, meta: await sharp(bytes).metadata() };
}

/** The RGB of one pixel of an image. */
export async function pixel(bytes: Buffer, x: number, y: number): Promise<[number, number, number]> {
  const { data, info } = await sharp(bytes).removeAlpha().raw().toBuffer({ resolveWithObject: true });
  const o = (y * info.width + x) * info.channels;
  return [data[o], data[o + 1], data[o + 2]];
}
