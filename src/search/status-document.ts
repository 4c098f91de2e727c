// What the status index holds of one status: Mastodon's StatusesIndex and PublicStatusesIndex
// documents (app/chewy/statuses_index.rb, public_statuses_index.rb) folded into one row.
import { Parser } from "htmlparser2";
import type { Account } from "../storage/accounts.ts";
import { statusSearchText } from "../storage/filter-rules.ts";
import type { MediaAttachment } from "../storage/media-attachments.ts";
import type { Status } from "../storage/statuses.ts";
import {
  authorWord,
  domainWord,
  languageWord,
  libraryWord,
  propertyWord,
  PUBLIC_WORD,
  type StatusProperty,
  tagWord,
} from "./tokens.ts";

export interface StatusDocumentInput {
  status: Status;
  author: Pick<Account, "id" | "domain" | "indexable">;
  media: MediaAttachment[];
  pollOptions: string[] | null;
  /** Normalised hashtag names. */
  tags: string[];
  /**
   * Local accounts that mentioned-in (shown mentions), favourited, bookmarked, boosted or voted
   * in it (Mastodon's searchable_by without the author).
   */
  library: string[];
}

export interface StatusDocument {
  text: string;
  meta: string;
}

/** Indexed text per status: a remote post may be far longer than any search needs. */
export const MAX_INDEXED_CHARS = 20_000;
/** HTML read per status: enough markup around MAX_INDEXED_CHARS of text. */
const MAX_INDEXED_HTML = 5 * MAX_INDEXED_CHARS;

// Mastodon's `embed` is a link whose preview card is a video (oEmbed). Roost fetches no preview
// cards yet, so a link to one of the big video hosts stands for it.
const VIDEO_HOSTS = /(^|\.)(youtube\.com|youtu\.be|youtube-nocookie\.com|vimeo\.com|dailymotion\.com|twitch\.tv|tiktok\.com)$/;

/**
 * The web links of a post's HTML: anchors that are neither mentions nor hashtags (Mastodon's
 * `link` property is a link with a preview card, which only such links get).
 */
export function statusLinks(html: string): string[] {
  if (!html.includes("<a")) return [];
  const out: string[] = [];
  const parser = new Parser({
    onopentag(name, attrs) {
      if (name !== "a" || !attrs.href) return;
      const cls = ` ${attrs.class ?? ""} `;
      if (/ (mention|hashtag) /.test(cls) || /(^|\s)tag(\s|$)/.test(attrs.rel ?? "")) return;
      if (/^https?:\/\//i.test(attrs.href)) out.push(attrs.href);
    },
  });
  parser.write(html);
  parser.end();
  return out;
}

function isVideoLink(href: string): boolean {
  try {
    return VIDEO_HOSTS.test(new URL(href).hostname.toLowerCase());
  } catch {
    return false;
  }
}

/** Mastodon's Status#searchable_properties. */
export function statusProperties(s: Status, media: MediaAttachment[]): StatusProperty[] {
  const out: StatusProperty[] = [];
  if (media.some((m) => m.type === "image")) out.push("image");
  if (media.some((m) => m.type === "video")) out.push("video");
  if (media.some((m) => m.type === "audio")) out.push("audio");
  if (media.length > 0) out.push("media");
  if (s.pollId !== null) out.push("poll");
  const links = statusLinks(s.content);
  if (links.length > 0) out.push("link");
  if (links.some(isVideoLink)) out.push("embed");
  if (s.sensitive) out.push("sensitive");
  if (s.inReplyToId !== null || s.inReplyToUri !== null) out.push("reply");
  return out;
}

/**
 * The index row of a status, or null when nobody may find it through search: a boost, or a
 * post that is neither public from an author who opted in nor in any local account's library.
 */
export function statusDocument(d: StatusDocumentInput): StatusDocument | null {
  // Only the start of a huge post is read (a remote one may be a megabyte of HTML): its text is
  // cut at MAX_INDEXED_CHARS anyway, and turning all of it into text would stall the server.
  const s = { ...d.status, content: d.status.content.slice(0, MAX_INDEXED_HTML), spoilerText: d.status.spoilerText.slice(0, MAX_INDEXED_CHARS) };
  if (s.reblogOfId !== null || s.deletedAt !== null) return null;
  const scope: string[] = [];
  if (s.visibility === "public" && d.author.indexable) scope.push(PUBLIC_WORD);
  const library = new Set(d.library);
  if (s.local) library.add(s.accountId);
  for (const id of library) scope.push(libraryWord(id));
  if (scope.length === 0) return null;

  const meta = [...scope, authorWord(s.accountId)];
  if (d.author.domain) meta.push(domainWord(d.author.domain));
  for (const p of statusProperties(s, d.media)) meta.push(propertyWord(p));
  if (s.language) meta.push(languageWord(s.language));
  for (const t of d.tags) meta.push(tagWord(t));
  return { text: statusSearchText(s, d.media, d.pollOptions).slice(0, MAX_INDEXED_CHARS), meta: meta.join(" ") };
}
