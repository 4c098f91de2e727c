// The posts of an archive's outbox.json, read into what the import needs. Each Create of a
// Note (or Question: its text, without the poll) becomes an ImportedNote; Announce (a boost)
// is counted and skipped, as is anything else. Visibility comes from to/cc as Mastodon reads
// it (ActivityPub::Activity::Create#visibility_from_audience): Public in `to` is public, in
// `cc` unlisted, the author's followers in `to` private, otherwise direct.
import { Parser } from "htmlparser2";
import type { Visibility } from "../storage/statuses.ts";
import { normalizeLanguage } from "../lib/status-text.ts";

const PUBLIC = new Set(["https://www.w3.org/ns/activitystreams#Public", "as:Public", "Public"]);
/** Longer texts are not imported (bounds the text work; Mastodon's own limit is 500). */
export const MAX_IMPORTED_TEXT = 50_000;

export interface ImportedAttachment {
  url: string;
  description: string | null;
  focus: string | null;
}

export interface ImportedNote {
  uri: string;
  published: number;
  visibility: Visibility;
  summary: string;
  sensitive: boolean;
  /** The post's text as one would type it: mentions written out in full (`@user@domain`). */
  text: string;
  language: string | null;
  inReplyTo: string | null;
  attachments: ImportedAttachment[];
  /** Set for a Question: its options are not imported. */
  poll: boolean;
}

export interface OutboxListing {
  notes: ImportedNote[];
  boosts: number;
  other: number;
}

const obj = (v: unknown): Record<string, unknown> | undefined => (v && typeof v === "object" && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined);
const strs = (v: unknown): string[] =>
  (Array.isArray(v) ? v : [v]).map((x) => (typeof x === "string" ? x : typeof obj(x)?.id === "string" ? (obj(x)!.id as string) : "")).filter((x) => x !== "");

export function visibilityFromAudience(note: Record<string, unknown>, followersUrl: string | null): Visibility {
  const to = strs(note.to);
  const cc = strs(note.cc);
  if (to.some((x) => PUBLIC.has(x))) return "public";
  if (cc.some((x) => PUBLIC.has(x))) return "unlisted";
  // Without actor.json, an archive's followers collection is still recognisable by its name.
  if (to.some((x) => (followersUrl ? x === followersUrl : /\/followers$/.test(x)))) return "private";
  return "direct";
}

/**
 * Plain text of a post's HTML, as its author would have typed it: paragraphs apart by a blank
 * line, <br> a line break, and a mention link written `@user@domain` (Mastodon shows only
 * `@user` in the link; the Mention tags give the rest).
 */
export function noteSourceText(html: string, mentionByHref: Map<string, string>): string {
  let out = "";
  let mention: string | null = null;
  let depth = 0; // nesting inside the mention's <a>
  const parser = new Parser(
    {
      onopentag(name, attrs) {
        if (mention !== null) {
          depth++;
          return;
        }
        if (name === "a" && attrs.href && mentionByHref.has(attrs.href)) {
          mention = mentionByHref.get(attrs.href)!;
          depth = 0;
        }
      },
      ontext(text) {
        if (mention === null) out += text;
      },
      onclosetag(name) {
        if (mention !== null) {
          if (depth > 0) {
            depth--;
            return;
          }
          out += mention;
          mention = null;
          return;
        }
        if (name === "br") out += "\n";
        else if (name === "p") out += "\n\n";
      },
    },
    { decodeEntities: true },
  );
  parser.write(html);
  parser.end();
  return out.replace(/\n{3,}/g, "\n\n").trim();
}

function mentionsOf(note: Record<string, unknown>): Map<string, string> {
  const out = new Map<string, string>();
  const tags = Array.isArray(note.tag) ? note.tag : [];
  for (const t of tags.map(obj)) {
    if (t?.type !== "Mention" || typeof t.href !== "string" || typeof t.name !== "string") continue;
    let name = t.name.trim();
    if (!name.startsWith("@")) name = `@${name}`;
    // Mastodon names an account of its own server without the domain: the actor's host is it.
    if (!name.slice(1).includes("@")) {
      try {
        name = `${name}@${new URL(t.href).host}`;
      } catch {
        continue;
      }
    }
    if (/^@[\w.-]+@[\w.:-]+$/.test(name)) out.set(t.href, name);
  }
  return out;
}

function attachmentsOf(note: Record<string, unknown>): ImportedAttachment[] {
  const list = Array.isArray(note.attachment) ? note.attachment : note.attachment ? [note.attachment] : [];
  const out: ImportedAttachment[] = [];
  for (const a of list.map(obj)) {
    const url = typeof a?.url === "string" ? a.url : typeof obj(a?.url)?.href === "string" ? (obj(a!.url)!.href as string) : undefined;
    if (!a || !url) continue;
    const fp = Array.isArray(a.focalPoint) && a.focalPoint.length === 2 && a.focalPoint.every((n) => typeof n === "number") ? `${a.focalPoint[0]},${a.focalPoint[1]}` : null;
    out.push({ url, description: typeof a.name === "string" && a.name.trim() !== "" ? a.name : null, focus: fp });
  }
  return out;
}

function textOf(v: unknown): string {
  if (typeof v !== "string") return "";
  return v.includes("<") || v.includes("&") ? noteSourceText(v, new Map()) : v.trim();
}

/** One outbox activity: an ImportedNote, or why not ("boost" / "other"). */
export function readOutboxItem(item: unknown, followersUrl: string | null): ImportedNote | "boost" | "other" {
  const activity = obj(item);
  if (activity?.type === "Announce") return "boost";
  if (activity?.type !== "Create") return "other";
  const note = obj(activity.object);
  if (!note || (note.type !== "Note" && note.type !== "Question") || typeof note.id !== "string" || note.id === "") return "other";
  const published = typeof note.published === "string" ? Date.parse(note.published) : NaN;
  if (!Number.isFinite(published) || published <= 0) return "other";
  const contentMap = obj(note.contentMap);
  const content = typeof note.content === "string" ? note.content : contentMap ? String(Object.values(contentMap)[0] ?? "") : "";
  const language = contentMap ? normalizeLanguage(Object.keys(contentMap)[0]) : null;
  const summary = textOf(note.summary);
  const inReplyTo = typeof note.inReplyTo === "string" ? note.inReplyTo : typeof obj(note.inReplyTo)?.id === "string" ? (obj(note.inReplyTo)!.id as string) : null;
  return {
    uri: note.id,
    published,
    visibility: visibilityFromAudience(note, followersUrl),
    summary,
    sensitive: note.sensitive === true || summary !== "",
    // HTML this long holds more text than is imported (MAX_IMPORTED_TEXT): not parsed at all.
    text: content.length > MAX_IMPORTED_TEXT * 4 ? content : noteSourceText(content, mentionsOf(note)),
    language,
    inReplyTo,
    attachments: attachmentsOf(note),
    poll: note.type === "Question",
  };
}

/** Every post of the outbox, with the count of boosts and other activities left out. */
export function listOutbox(items: unknown[], followersUrl: string | null): OutboxListing {
  const listing: OutboxListing = { notes: [], boosts: 0, other: 0 };
  for (const item of items) {
    const r = readOutboxItem(item, followersUrl);
    if (r === "boost") listing.boosts++;
    else if (r === "other") listing.other++;
    else listing.notes.push(r);
  }
  return listing;
}
