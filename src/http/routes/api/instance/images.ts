// Default instance thumbnail and app icons referenced by the instance entity (`thumbnail`,
// `icon`), so clients never show a broken image. Flat images in roost's colour, rendered once
// per size and kept in app.cache.
import { getRouterParam, type H3Event } from "h3";
import { encodePng } from "../../../../media/png.ts";
import type { App } from "../../../../app.ts";
import type { Router } from "../../../router.ts";
import { notFound } from "../../../../errors.ts";
import { ICON_SIZES } from "../../../../serializers/instance.ts";

const COLOUR = { r: 0x3a, g: 0x5a, b: 0x80 };

function flatPng(app: App, width: number, height: number): Buffer {
  const key = `instance-image:${width}x${height}`;
  const hit = app.cache.get(key);
  if (hit instanceof Buffer) return hit;
  // Drawn with our small PNG encoder: sharp stays out of the main process (idle RSS budget).
  const pixels = new Uint8Array(width * height * 3);
  for (let i = 0; i < pixels.length; i += 3) pixels.set([COLOUR.r, COLOUR.g, COLOUR.b], i);
  const png = encodePng(width, height, 3, pixels);
  app.cache.set(key, png);
  return png;
}

function pngResponse(event: H3Event, body: Buffer): Uint8Array {
  event.res.headers.set("content-type", "image/png");
  event.res.headers.set("cache-control", "public, max-age=86400");
  return new Uint8Array(body);
}

export function registerInstanceImageRoutes(app: App, r: Router): void {
  r.get("/instance/thumbnail.png", async (event) => pngResponse(event, flatPng(app, 1200, 630)));

  r.get("/instance/icons/:file", async (event) => {
    const m = /^(\d+)\.png$/.exec(getRouterParam(event, "file") ?? "");
    const size = m ? Number(m[1]) : NaN;
    if (!ICON_SIZES.includes(size)) throw notFound();
    return pngResponse(event, flatPng(app, size, size));
  });
}
