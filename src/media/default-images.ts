import type { App } from "../app.ts";
import { encodePng } from "./png.ts";

// Mastodon shows `/avatars/original/missing.png` and `/headers/original/missing.png` for
// accounts without images (and for suspended ones). roost draws them in code on first use
// and keeps the bytes in app.cache (a few KB).

export const DEFAULT_AVATAR_PATH = "/avatars/original/missing.png";
export const DEFAULT_HEADER_PATH = "/headers/original/missing.png";

export const defaultAvatarUrl = (app: App) => app.baseUrl + DEFAULT_AVATAR_PATH;
export const defaultHeaderUrl = (app: App) => app.baseUrl + DEFAULT_HEADER_PATH;

const BACKGROUND = [214, 219, 228];
const FIGURE = [150, 160, 176];

/** A grey head-and-shoulders silhouette, 400×400, edges smoothed by 4× supersampling. */
function drawAvatar(size = 400): Buffer {
  const px = new Uint8Array(size * size * 3);
  const head = { x: size / 2, y: size * 0.4, r: size * 0.19 };
  const body = { x: size / 2, y: size * 1.02, rx: size * 0.37, ry: size * 0.4 };
  const inside = (x: number, y: number) =>
    (x - head.x) ** 2 + (y - head.y) ** 2 <= head.r ** 2 ||
    ((x - body.x) / body.rx) ** 2 + ((y - body.y) / body.ry) ** 2 <= 1;
  for (let y = 0; y < size; y++) {
    for (let x = 0; x < size; x++) {
      let hits = 0;
      for (const dy of [0.25, 0.75]) for (const dx of [0.25, 0.75]) if (inside(x + dx, y + dy)) hits++;
      const t = hits / 4;
      const o = (y * size + x) * 3;
      for (let c = 0; c < 3; c++) px[o + c] = Math.round(BACKGROUND[c] * (1 - t) + FIGURE[c] * t);
    }
  }
  return encodePng(size, size, 3, px);
}

/** A plain banner, 1500×500. */
function drawHeader(width = 1500, height = 500): Buffer {
  const px = new Uint8Array(width * height * 3);
  for (let i = 0; i < px.length; i += 3) px.set(BACKGROUND, i);
  return encodePng(width, height, 3, px);
}

export function defaultImage(app: App, kind: "avatar" | "header"): Buffer {
  const key = `media:default:${kind}`;
  let png = app.cache.get(key) as Buffer | undefined;
  if (!png) {
    png = kind === "avatar" ? drawAvatar() : drawHeader();
    app.cache.set(key, png);
  }
  return png;
}
