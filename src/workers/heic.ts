// HEIC photos (HEVC in a HEIF container: what iPhones take) decoded by libheif compiled to
// WebAssembly (libheif-js, with libde265): sharp's prebuilt libvips reads the HEIF boxes but has
// no HEVC decoder, and the ffmpeg we ship (4.1) reads no HEIF images. Used by the image worker
// process only (workers/media-tasks.ts), loaded on the first HEIC: the wasm heap grows to the
// largest photo decoded and stays so until the process exits when idle.
//
// libheif applies the HEIF transformations (irot, imir, clap) while decoding; the EXIF
// Orientation an iPhone also writes describes the same turn and must not be applied again
// (ISO/IEC 23008-12). The pixels come out with no metadata at all: EXIF and GPS stay behind.
import { readFile } from "node:fs/promises";
import { createRequire } from "node:module";

export interface DecodedHeic {
  /** Interleaved 8-bit RGB or RGBA rows, no padding. */
  data: Buffer;
  width: number;
  height: number;
  channels: 3 | 4;
}

/** The parts of libheif-js's embind module used here. */
interface HeifEnum {
  value: number;
}
interface HeifError {
  code: HeifEnum;
  message: string;
}
interface HeifChannel {
  id: HeifEnum;
  width: number;
  height: number;
  stride: number;
  data: Uint8Array;
}
interface HeifDecoded {
  code?: HeifEnum;
  image: unknown;
  channels: HeifChannel[];
}
interface LibHeif {
  ready: Promise<unknown>;
  heif_error_code: { heif_error_Ok: HeifEnum };
  heif_colorspace: { heif_colorspace_RGB: HeifEnum };
  heif_chroma: { heif_chroma_interleaved_RGB: HeifEnum; heif_chroma_interleaved_RGBA: HeifEnum };
  heif_channel: { heif_channel_interleaved: HeifEnum };
  heif_context_alloc(): unknown;
  heif_context_free(ctx: unknown): void;
  heif_context_read_from_memory(ctx: unknown, data: Uint8Array): HeifError;
  heif_js_context_get_primary_image_handle(ctx: unknown): unknown;
  heif_image_handle_get_width(handle: unknown): number;
  heif_image_handle_get_height(handle: unknown): number;
  heif_image_handle_has_alpha_channel(handle: unknown): number;
  heif_image_handle_release(handle: unknown): void;
  heif_js_decode_image2(handle: unknown, colorspace: HeifEnum, chroma: HeifEnum): HeifDecoded | Promise<HeifDecoded>;
  heif_image_release(image: unknown): void;
}

let loaded: Promise<LibHeif> | undefined;
function libheif(): Promise<LibHeif> {
  loaded ??= (async () => {
    // The build with the wasm inlined (no .wasm file to locate), required at run time rather
    // than bundled by build.mjs: 2 MB that only a HEIC upload needs.
    const factory = createRequire(import.meta.url)("libheif-js/libheif-wasm/libheif-bundle.js") as () => LibHeif;
    const lib = factory();
    await lib.ready;
    return lib;
  })();
  return loaded;
}

const isError = (x: unknown): x is { code: HeifEnum } =>
  typeof x === "object" && x !== null && "code" in x && typeof (x as { code: unknown }).code === "object";

/**
 * Decodes the primary image of a HEIF file, transformations applied. Refuses (with the reason)
 * a file libheif cannot read and, before decoding a pixel, one larger than `maxPixels`.
 */
export async function decodeHeic(path: string, maxPixels: number): Promise<DecodedHeic | { error: string }> {
  const lib = await libheif();
  const file = await readFile(path);
  const ctx = lib.heif_context_alloc();
  let handle: unknown;
  try {
    const read = lib.heif_context_read_from_memory(ctx, file);
    if (read.code !== lib.heif_error_code.heif_error_Ok) return { error: read.message };
    handle = lib.heif_js_context_get_primary_image_handle(ctx);
    if (!handle || isError(handle)) return { error: "no primary image" };
    const width = lib.heif_image_handle_get_width(handle);
    const height = lib.heif_image_handle_get_height(handle);
    if (!(width > 0 && height > 0) || width * height > maxPixels) return { error: `${width}x${height} images are not supported` };
    const alpha = lib.heif_image_handle_has_alpha_channel(handle) !== 0;
    const channels = alpha ? 4 : 3;
    const chroma = alpha ? lib.heif_chroma.heif_chroma_interleaved_RGBA : lib.heif_chroma.heif_chroma_interleaved_RGB;
    const image = await lib.heif_js_decode_image2(handle, lib.heif_colorspace.heif_colorspace_RGB, chroma);
    if (!image || image.code || !image.channels) return { error: "undecodable image data" };
    try {
      const plane = image.channels.find((c) => c.id === lib.heif_channel.heif_channel_interleaved);
      if (!plane || plane.width !== width || plane.height !== height) return { error: "unexpected decoded layout" };
      const row = width * channels;
      const data = Buffer.allocUnsafe(row * height);
      for (let y = 0; y < height; y++) data.set(plane.data.subarray(y * plane.stride, y * plane.stride + row), y * row);
      return { data, width, height, channels };
    } finally {
      lib.heif_image_release(image.image);
    }
  } finally {
    if (handle && !isError(handle)) lib.heif_image_handle_release(handle);
    lib.heif_context_free(ctx);
  }
}
