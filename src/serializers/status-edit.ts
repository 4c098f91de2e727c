// https://docs.joinmastodon.org/entities/StatusEdit/ and StatusSource (entities-core.md).
import type { App } from "../app.ts";
import { findAccountById } from "../storage/accounts.ts";
import { findEmojisByShortcodes } from "../storage/custom-emojis.ts";
import type { StatusEdit } from "../storage/status-edits.ts";
import type { Status } from "../storage/statuses.ts";
import { toApiAccount } from "./account.ts";
import { type ApiCustomEmoji, toApiCustomEmoji } from "./custom-emoji.ts";
import { findMediaByIds } from "../storage/media-attachments.ts";
import { toApiMediaAttachment } from "./media-attachment.ts";

const SHORTCODE_RE = /(?<![\p{L}\p{N}:]):([a-zA-Z0-9_]{2,}):(?![\p{L}\p{N}:])/gu;
const codesOf = (e: StatusEdit) => [...`${e.spoilerText} ${e.text || e.content}`.matchAll(SHORTCODE_RE)].map((m) => m[1]);

/** The revisions of one status (one author, one emoji and one media lookup for all of them). */
export function toApiStatusEdits(app: App, status: Status, edits: StatusEdit[]): Record<string, unknown>[] {
  const author = findAccountById(app.db, status.accountId);
  const account = author ? toApiAccount(app, author) : null;
  const all = [...new Set(edits.flatMap(codesOf))];
  const emojis = new Map<string, ApiCustomEmoji>();
  for (const e of findEmojisByShortcodes(app.db, all, author?.domain ?? null)) emojis.set(e.shortcode, toApiCustomEmoji(app, e));
  // Each revision keeps the ids of the media it had; a file removed since is left out.
  const media = findMediaByIds(app.db, edits.flatMap((e) => e.mediaIds));
  return edits.map((e) => {
    const out: Record<string, unknown> = {
      content: e.content,
      spoiler_text: e.spoilerText,
      sensitive: e.sensitive,
      created_at: new Date(e.createdAt).toISOString(),
      account,
      media_attachments: e.mediaIds.flatMap((id) => {
        const m = media.get(id);
        return m ? [toApiMediaAttachment(app, m)] : [];
      }),
      emojis: [...new Set(codesOf(e))].map((c) => emojis.get(c)).filter((x) => x !== undefined),
    };
    // Only a revision that had a poll shows one: its option titles (REST::StatusEditSerializer).
    if (e.pollOptions) out.poll = { options: e.pollOptions.map((title) => ({ title })) };
    return out;
  });
}

/** StatusSource: the plain text for the edit form. */
export function toApiStatusSource(status: Status): { id: string; text: string; spoiler_text: string } {
  return { id: status.id, text: status.text, spoiler_text: status.spoilerText };
}
