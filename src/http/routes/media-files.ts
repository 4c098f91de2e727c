// Stored media (`/system/<path>`, lib/urls.ts mediaUrl) and Mastodon's default avatar and
// header images. Stored names are unique (random or id-based), so files are immutable.
import { createReadStream } from "node:fs";
import { stat } from "node:fs/promises";
import { Readable } from "node:stream";
import type { H3Event } from "h3";
import type { App } from "../../app.ts";
import type { Router } from "../../http/router.ts";
import { notFound } from "../../errors.ts";
import { DEFAULT_AVATAR_PATH, DEFAULT_HEADER_PATH, defaultImage } from "../../media/default-images.ts";
import { contentTypeFor, resolveMediaPath } from "../../media/files.ts";

const IMMUTABLE = "public, max-age=31536000, immutable";

function baseHeaders(contentType: string): Headers {
  return new Headers({
    "content-type": contentType,
    "cache-control": IMMUTABLE,
    "accept-ranges": "bytes",
    "access-control-allow-origin": "*",
    "x-content-type-options": "nosniff",
    // A stored file is never a page: no scripts even if a browser is tricked into rendering it.
    "content-security-policy": "default-src 'none'; sandbox",
  });
}

/**
 * h3 merges the event's response headers over a returned Response's (the server's default
 * `private, no-store` would win), so the file's headers go on the event.
 */
function respond(event: H3Event, body: BodyInit | null, status: number, headers: Headers): Response {
  for (const [k, v] of headers) event.res.headers.set(k, v);
  return new Response(body, { status });
}

/** `bytes=a-b`, `bytes=a-`, `bytes=-n` (one range); undefined when absent or unsatisfiable. */
function parseRange(header: string | null, size: number): { start: number; end: number } | "invalid" | undefined {
  if (!header) return undefined;
  const m = /^bytes=(\d*)-(\d*)$/.exec(header.trim());
  if (!m || (m[1] === "" && m[2] === "")) return "invalid";
  let start: number;
  let end: number;
  if (m[1] === "") {
    const n = Number(m[2]);
    start = Math.max(0, size - n);
    end = size - 1;
  } else {
    start = Number(m[1]);
    end = m[2] === "" ? size - 1 : Math.min(Number(m[2]), size - 1);
  }
  if (start > end || start >= size) return "invalid";
  return { start, end };
}

async function serveStored(app: App, event: H3Event): Promise<Response> {
  let relative: string;
  try {
    relative = decodeURIComponent(event.url.pathname.slice("/system/".length));
  } catch {
    throw notFound("Not Found");
  }
  const full = resolveMediaPath(app, relative);
  if (!full) throw notFound("Not Found");
  const info = await stat(full).catch(() => undefined);
  if (!info?.isFile()) throw notFound("Not Found");
  const headers = baseHeaders(contentTypeFor(full));
  const etag = `"${info.size.toString(16)}-${Math.floor(info.mtimeMs).toString(16)}"`;
  headers.set("etag", etag);
  if (event.req.headers.get("if-none-match") === etag) return respond(event, null, 304, headers);
  const range = parseRange(event.req.headers.get("range"), info.size);
  if (range === "invalid") {
    headers.set("content-range", `bytes */${info.size}`);
    return respond(event, null, 416, headers);
  }
  const start = range?.start ?? 0;
  const end = range?.end ?? info.size - 1;
  headers.set("content-length", String(info.size === 0 ? 0 : end - start + 1));
  if (info.size === 0) return respond(event, null, 200, headers);
  if (range) headers.set("content-range", `bytes ${start}-${end}/${info.size}`);
  const body = Readable.toWeb(createReadStream(full, { start, end })) as unknown as ReadableStream<Uint8Array>;
  return respond(event, body, range ? 206 : 200, headers);
}

export function registerMediaFileRoutes(app: App, r: Router): void {
  r.get("/system/**", (event) => serveStored(app, event));
  for (const [path, kind] of [[DEFAULT_AVATAR_PATH, "avatar"], [DEFAULT_HEADER_PATH, "header"]] as const) {
    r.get(path, (event) => {
      const png = defaultImage(app, kind);
      const headers = baseHeaders("image/png");
      headers.set("content-length", String(png.length));
      // Not immutable: the picture may change with a new release under the same URL.
      headers.set("cache-control", "public, max-age=86400");
      return respond(event, new Uint8Array(png), 200, headers);
    });
  }
}
