// Remote Note-like objects (AP §4) → a checked ParsedNote.
import { normalizeLanguage } from "../../lib/status-text.ts";
import { escapeHtml, linkHtml } from "../../lib/text-html.ts";
import { AS_PUBLIC, FederationError, type ApObject, type ParsedEmoji } from "../types.ts";
import { parseAttachments } from "./attachments.ts";
import { parseEmojiTags } from "./emojis.ts";
import { asArray, clip, dateOf, firstOfMap, hasType, httpUrl, idOf, idsOf, isObject, isPublicAddress, str, urlOf } from "./common.ts";
import { sanitizeRemoteHtml } from "./html.ts";
import { type ParsedPoll, parseApPoll } from "./poll.ts";

export interface ParsedAttachment {
  type: "image" | "gifv" | "video" | "audio" | "unknown";
  url: string;
  mediaType: string | null;
  /** Alt text (summary, else name), ≤ 10 000 characters. */
  description: string | null;
  blurhash: string | null;
  width: number | null;
  height: number | null;
  focus: [number, number] | null;
  /** `icon`: a thumbnail chosen by the author (audio covers, video posters). */
  thumbnailUrl: string | null;
}

export interface ParsedNote {
  uri: string;
  /** Note, Question, or a converted Article/Page/Image/Audio/Video/Event. */
  type: string;
  url: string | null;
  attributedTo: string | null;
  /** Sanitised HTML (converted types: `<h2>name</h2>` + summary + link). */
  content: string;
  /** The content warning (plain text). */
  spoilerText: string;
  sensitive: boolean;
  language: string | null;
  inReplyTo: string | null;
  published: number | null;
  /** Last edit time, when present. */
  updated: number | null;
  /** Addressing; every spelling of Public is written as the full URI. */
  to: string[];
  cc: string[];
  mentions: { href: string; name: string | null }[];
  /** Hashtag names without '#', as written. */
  hashtags: string[];
  emojis: ParsedEmoji[];
  attachments: ParsedAttachment[];
  /** `context` (FEP-7888) or OStatus `conversation`: thread grouping key. */
  conversation: string | null;
  /** `likes.totalItems` / `shares.totalItems`: the origin's counts, untrusted (AP §4.2). */
  likesCount: number | null;
  sharesCount: number | null;
  /** A Question's poll (parse/poll.ts); null for anything else. */
  poll: ParsedPoll | null;
}

const NATIVE_TYPES = ["Note", "Question"];
// Shown as a link with their title and summary rather than in full (AP §4.2).
const CONVERTED_TYPES = ["Article", "Page", "Image", "Audio", "Video", "Event"];
const MAX_TAGS = 100;
const MAX_URI = 2048;
// Remote text is bounded before anything reads it (the inbox takes 1 MiB bodies): a title like
// a display name, a content warning like the content (html.ts MAX_REMOTE_HTML), and hashtag
// names at a length no real tag reaches (each is normalised and stored).
const MAX_TITLE = 2048;
const MAX_SUMMARY = 64 * 1024;
const MAX_TAG_NAME = 256;

/** True when the object is Note-like (Note, Question, Article, Page, Image, Audio, Video, Event). */
export function isNoteLike(doc: ApObject): boolean {
  return hasType(doc, ...NATIVE_TYPES, ...CONVERTED_TYPES);
}

/** An object id; a `bear:` capability URI carries the real one in its `u` parameter. */
function objectUri(v: unknown): string | undefined {
  const id = idOf(v);
  if (id?.startsWith("bear:")) return httpUrl(new URLSearchParams(id.slice(id.indexOf("?") + 1)).get("u") ?? undefined);
  return httpUrl(id);
}

/** `to`/`cc` of the object, else of the wrapping activity; Public in one spelling. */
function addressing(doc: ApObject, activity: ApObject | undefined, key: "to" | "cc"): string[] {
  const v = doc[key] ?? activity?.[key];
  return [...new Set(idsOf(v).map((a) => (isPublicAddress(a) ? AS_PUBLIC : a)))];
}

const textOf = (v: unknown, map: unknown) => str(v) ?? firstOfMap(map)?.value;

function languageOf(doc: ApObject): string | null {
  const tag = firstOfMap(doc.contentMap)?.lang ?? firstOfMap(doc.nameMap)?.lang ?? firstOfMap(doc.summaryMap)?.lang;
  return normalizeLanguage(tag);
}

/** Article & co.: the title as a heading, the summary, and a link to the original. */
function convertedContent(doc: ApObject, url: string): string {
  const parts: string[] = [];
  const name = textOf(doc.name, doc.nameMap);
  if (name) parts.push(`<h2>${escapeHtml(clip(name, MAX_TITLE))}</h2>`);
  const summary = textOf(doc.summary, doc.summaryMap);
  if (summary) parts.push(summary.trimStart().startsWith("<") ? summary : `<p>${escapeHtml(clip(summary, MAX_SUMMARY))}</p>`);
  parts.push(`<p>${linkHtml(url)}</p>`);
  return parts.join("");
}

function parseTags(tag: unknown): Pick<ParsedNote, "mentions" | "hashtags"> {
  const mentions: ParsedNote["mentions"] = [];
  const hashtags: string[] = [];
  const seen = new Set<string>();
  for (const t of asArray(tag).slice(0, MAX_TAGS)) {
    if (!isObject(t)) continue;
    if (hasType(t, "Mention")) {
      const href = httpUrl(idOf(t.href));
      if (href && !seen.has(href)) {
        seen.add(href);
        mentions.push({ href, name: str(t.name)?.slice(0, MAX_URI) ?? null });
      }
    } else if (hasType(t, "Hashtag")) {
      const name = str(t.name)?.replace(/^[#＃]/, "");
      if (name && name.length <= MAX_TAG_NAME) hashtags.push(name);
    }
  }
  return { mentions, hashtags };
}

const totalItems = (v: unknown) =>
  isObject(v) && typeof v.totalItems === "number" && Number.isSafeInteger(v.totalItems) && v.totalItems >= 0 ? v.totalItems : null;

/**
 * Checks and reads a Note-like object; throws FederationError(permanent) when unusable.
 * `activity` is the wrapping Create/Update: its `to`/`cc` count when the object has none.
 * Software-specific extras are ignored on purpose: Misskey's `_misskey_content` (MFM source;
 * `content` is the HTML to show), quote fields (`quoteUrl`, `_misskey_quote`), `source`.
 */
export function parseApNote(doc: ApObject, activity?: ApObject): ParsedNote {
  if (!isObject(doc) || !isNoteLike(doc)) throw new FederationError("not a Note-like object", true);
  const uri = objectUri(doc.id);
  if (!uri) throw new FederationError("object without a usable id", true);
  const type = [...NATIVE_TYPES, ...CONVERTED_TYPES].find((t) => hasType(doc, t))!;
  const converted = CONVERTED_TYPES.includes(type);
  const url = urlOf(doc.url) ?? null;
  const conversation = idOf(doc.context) ?? idOf(doc.conversation);
  const rawContent = converted ? convertedContent(doc, url ?? uri) : (textOf(doc.content, doc.contentMap) ?? "");
  return {
    uri,
    type,
    url,
    attributedTo: httpUrl(idOf(asArray(doc.attributedTo)[0])) ?? null,
    content: sanitizeRemoteHtml(rawContent),
    // A converted object's summary went into its text.
    spoilerText: converted ? "" : clip(textOf(doc.summary, doc.summaryMap) ?? "", MAX_SUMMARY),
    sensitive: doc.sensitive === true,
    language: languageOf(doc),
    inReplyTo: objectUri(asArray(doc.inReplyTo)[0]) ?? null,
    published: dateOf(doc.published) ?? null,
    updated: dateOf(doc.updated) ?? null,
    to: addressing(doc, activity, "to"),
    cc: addressing(doc, activity, "cc"),
    ...parseTags(doc.tag),
    emojis: parseEmojiTags(doc.tag),
    attachments: parseAttachments(doc.attachment),
    conversation: conversation && conversation.length <= MAX_URI ? conversation : null,
    likesCount: totalItems(doc.likes),
    sharesCount: totalItems(doc.shares),
    poll: parseApPoll(doc),
  };
}
