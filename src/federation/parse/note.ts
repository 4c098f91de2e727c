// Remote Note-like objects (AP §4) → a checked ParsedNote.
import type { ApObject, ParsedEmoji } from "../types.ts";

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
  to: string[];
  cc: string[];
  mentions: { href: string; name: string | null }[];
  /** Hashtag names without '#', as written. */
  hashtags: string[];
  emojis: ParsedEmoji[];
  attachments: ParsedAttachment[];
  /** `context` (FEP-7888) or OStatus `conversation`: thread grouping key. */
  conversation: string | null;
}

/** True when the object is Note-like (Note, Question, Article, Page, Image, Audio, Video, Event). */
export function isNoteLike(_doc: ApObject): boolean {
  throw new Error("isNoteLike: not implemented");
}

/** Checks and reads a Note-like object; throws FederationError(permanent) when unusable. */
export function parseApNote(_doc: ApObject): ParsedNote {
  throw new Error("parseApNote: not implemented");
}
