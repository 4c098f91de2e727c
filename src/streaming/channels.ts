import type { App } from "../app.ts";
import { topics } from "../events/topics.ts";
import type { Id } from "../lib/ids.ts";
import { scopesSatisfy } from "../lib/scopes.ts";
import { normalizeTag } from "../lib/tags.ts";
import { findOwnList } from "../services/lists.ts";

// Stream names → bus topics (streaming.md §3; Mastodon's channelNameToIds).

/** A refused subscription: the status and Mastodon's wording. */
export class StreamError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
    this.name = "StreamError";
  }
}

/** Who holds a stream: checked once when it opens, then kept alive by the hub's token sweep. */
export interface StreamViewer {
  accountId: Id;
  tokenId: Id;
  scopes: readonly string[];
}

/**
 * How events of a channel are rendered: `home` and `list` statuses as their owner sees them,
 * `public` ones anonymously and then filtered per viewer (streaming.md §7); the others carry
 * entities of the viewer (notifications, conversations) or plain payloads.
 */
export type ChannelKind = "home" | "notifications" | "public" | "list" | "direct";

export interface Channel {
  name: string;
  /** The `stream` array of each event: `[name]`, or `[name, tag as sent]` / `[name, list id]`. */
  label: string[];
  topics: string[];
  kind: ChannelKind;
  /** One subscription per key on a socket (subscribing twice is a no-op). */
  key: string;
}

const PUBLIC = new Set(["public", "public:media", "public:local", "public:local:media", "public:remote", "public:remote:media", "hashtag", "hashtag:local"]);

/** Mastodon's isTruthy for `only_media`: anything but these (and empty) is true. */
const FALSE_VALUES = new Set(["0", "f", "F", "false", "FALSE", "off", "OFF"]);
export function isTruthy(v: string | null | undefined): boolean {
  return !!v && !FALSE_VALUES.has(v);
}

/**
 * Scopes (Mastodon's checkScopes): public and hashtag streams need any user token; the
 * notification stream `read` or `read:notifications`; the others `read` or `read:statuses`.
 */
function checkScopes(viewer: StreamViewer, name: string): void {
  if (PUBLIC.has(name)) return;
  const need = name === "user:notification" ? ["read", "read:notifications"] : ["read", "read:statuses"];
  if (!scopesSatisfy(viewer.scopes, need))
    throw new StreamError(401, "Access token does not have the required scopes");
}

function param(v: unknown): string | undefined {
  if (typeof v === "string") return v === "" ? undefined : v;
  if (typeof v === "number" && Number.isFinite(v)) return String(v);
  return undefined;
}

/**
 * The channel a subscription names: `stream` (an array counts by its first element) with
 * `tag` or `list` where needed. Throws StreamError: 400 for an unknown name or a missing
 * parameter, 401 for scopes or a list that is not the viewer's.
 */
export function resolveChannel(
  app: App,
  viewer: StreamViewer,
  rawName: unknown,
  params: { tag?: unknown; list?: unknown },
  opts: { checkScopes?: boolean } = {},
): Channel {
  const name = Array.isArray(rawName) ? rawName[0] : rawName;
  if (typeof name !== "string") throw new StreamError(400, "Unknown stream type");
  const simple = (kind: ChannelKind, ts: string[]): Channel => ({ name, label: [name], topics: ts, kind, key: name });
  let channel: Channel;
  switch (name) {
    case "user": {
      const ts = [topics.home(viewer.accountId), topics.announcements()];
      // The user stream carries notifications only for a token that may read them.
      if (scopesSatisfy(viewer.scopes, ["read:notifications"])) ts.push(topics.notifications(viewer.accountId));
      channel = simple("home", ts);
      break;
    }
    case "user:notification":
      channel = simple("notifications", [topics.notifications(viewer.accountId)]);
      break;
    case "direct":
      channel = simple("direct", [topics.direct(viewer.accountId)]);
      break;
    case "public":
    case "public:media":
    case "public:local":
    case "public:local:media":
    case "public:remote":
    case "public:remote:media": {
      const [, scope, media] = /^public(?::(local|remote))?(:media)?$/.exec(name)!;
      channel = simple("public", [topics.public((scope as "local" | "remote" | undefined) ?? "all", !!media)]);
      break;
    }
    case "hashtag":
    case "hashtag:local": {
      const tag = param(params.tag);
      if (tag === undefined) throw new StreamError(400, "Missing tag name parameter");
      // The same normalisation as the tags the statuses link (and as the tag timeline).
      const t = topics.hashtag(normalizeTag(tag), name === "hashtag:local");
      channel = { name, label: [name, tag], topics: [t], kind: "public", key: t };
      break;
    }
    case "list": {
      const list = param(params.list);
      if (list === undefined) throw new StreamError(400, "Missing list name parameter");
      const own = findOwnList(app, viewer.accountId, list);
      if (!own) throw new StreamError(401, "Not authorized to stream this list");
      channel = { name, label: [name, list], topics: [topics.list(own.id)], kind: "list", key: topics.list(own.id) };
      break;
    }
    default:
      throw new StreamError(400, "Unknown stream type");
  }
  if (opts.checkScopes !== false) checkScopes(viewer, name);
  return channel;
}

/** The stream an SSE path serves (Mastodon's channelNameFromPath), or undefined. */
export function streamOfPath(path: string, onlyMedia: boolean): string | undefined {
  const p = path.length > 1 && path.endsWith("/") ? path.slice(0, -1) : path;
  switch (p) {
    case "/api/v1/streaming/user":
      return "user";
    case "/api/v1/streaming/user/notification":
      return "user:notification";
    case "/api/v1/streaming/public":
      return onlyMedia ? "public:media" : "public";
    case "/api/v1/streaming/public/local":
      return onlyMedia ? "public:local:media" : "public:local";
    case "/api/v1/streaming/public/remote":
      return onlyMedia ? "public:remote:media" : "public:remote";
    case "/api/v1/streaming/hashtag":
      return "hashtag";
    case "/api/v1/streaming/hashtag/local":
      return "hashtag:local";
    case "/api/v1/streaming/direct":
      return "direct";
    case "/api/v1/streaming/list":
      return "list";
    default:
      return undefined;
  }
}
