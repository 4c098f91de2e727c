import type { H3Event } from "h3";
import type { App } from "../app.ts";
import { parseId, type Id } from "../lib/ids.ts";
import type { Params } from "./params.ts";

// https://docs.joinmastodon.org/api/guidelines/#pagination
export interface PageParams {
  limit: number;
  maxId?: Id;
  sinceId?: Id;
  minId?: Id;
}

/** limit = min(|limit|, max), default when absent; malformed cursors are ignored. */
export function pageParams(p: Params, def = 20, max = def * 2): PageParams {
  const raw = p.int("limit");
  const limit = raw === undefined ? def : Math.min(Math.abs(raw), max);
  return {
    limit,
    maxId: parseId(p.str("max_id")),
    sinceId: parseId(p.str("since_id")),
    minId: parseId(p.str("min_id")),
  };
}

export interface LinkOptions {
  /** Cursor ids of the returned page, newest first (may be hidden join-record ids). */
  cursors: Id[];
  limit: number;
  /** Timelines and notifications emit `next` for any non-empty page; others only when full. */
  nextAlways?: boolean;
  prevParam?: "min_id" | "since_id";
  /** Filter params repeated in the links (e.g. only_media, types[]). */
  keep?: string[];
}

/** Sets Mastodon's Link header; omitted entirely when neither link is known. */
export function setLinkHeader(app: App, event: H3Event, p: Params, o: LinkOptions): void {
  const links: string[] = [];
  const first = o.cursors[0];
  const last = o.cursors[o.cursors.length - 1];
  const base = app.baseUrl + event.url.pathname;
  const build = (cursorName: string, cursor: Id) => {
    const q = new URLSearchParams();
    q.set("limit", String(o.limit));
    for (const k of o.keep ?? []) {
      const arr = p.strArray(k);
      if (arr) for (const v of arr) q.append(`${k}[]`, v);
      else {
        const v = p.str(k);
        if (v !== undefined) q.set(k, v);
      }
    }
    q.set(cursorName, cursor);
    return `${base}?${q.toString().replace(/%5B%5D=/g, "[]=")}`;
  };
  if (last !== undefined && (o.nextAlways || o.cursors.length >= o.limit)) {
    links.push(`<${build("max_id", last)}>; rel="next"`);
  }
  if (first !== undefined) links.push(`<${build(o.prevParam ?? "min_id", first)}>; rel="prev"`);
  if (links.length) event.res.headers.set("link", links.join(", "));
}
