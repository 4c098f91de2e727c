// https://docs.joinmastodon.org/entities/Poll/ (entities-core.md "Poll"), Mastodon's
// REST::PollSerializer. Rendered for every reader (never cached as text): `expired` follows the
// clock, the counts change with each vote, and `voted`/`own_votes` belong to the viewer.
import type { App } from "../app.ts";
import type { Id } from "../lib/ids.ts";
import { isoTime } from "../lib/iso-time.ts";
import { findAccountById } from "../storage/accounts.ts";
import { findEmojisByDomain } from "../storage/custom-emojis.ts";
import { findOwnChoices } from "../storage/poll-votes.ts";
import type { Poll } from "../storage/polls.ts";
import { pollShortcodes } from "../storage/status-page.ts";
import { type ApiCustomEmoji, toApiCustomEmoji } from "./custom-emoji.ts";

export interface ApiPoll {
  id: string;
  expires_at: string | null;
  expired: boolean;
  multiple: boolean;
  votes_count: number;
  voters_count: number | null;
  options: { title: string; votes_count: number | null }[];
  emojis: ApiCustomEmoji[];
  voted?: boolean;
  own_votes?: number[];
}

/**
 * The Poll entity. `viewer`: the account reading it and its choices (null: anonymous, so no
 * `voted`/`own_votes`). `emojis`: the custom emojis of the author's domain by shortcode.
 */
export function toApiPoll(app: App, poll: Poll, viewer: { id: Id; choices: number[] } | null, emojis: (code: string) => ApiCustomEmoji | undefined): ApiPoll {
  const expired = poll.expiresAt !== null && poll.expiresAt < app.now();
  // Mastodon's show_totals_now?: hidden totals stay hidden from everyone, the author too, until the end.
  const showTotals = expired || !poll.hideTotals;
  const out: ApiPoll = {
    id: poll.id,
    expires_at: poll.expiresAt === null ? null : isoTime(poll.expiresAt),
    expired,
    multiple: poll.multiple,
    votes_count: poll.votesCount,
    voters_count: poll.votersCount,
    options: poll.options.map((title, i) => ({ title, votes_count: showTotals ? poll.tallies[i] : null })),
    emojis: [...new Set(pollShortcodes(poll))].map(emojis).filter((e) => e !== undefined),
  };
  if (viewer) {
    // The author counts as having voted (Poll#voted?).
    out.voted = viewer.id === poll.accountId || viewer.choices.length > 0;
    out.own_votes = viewer.choices;
  }
  return out;
}

/** One poll on its own (GET /api/v1/polls/:id, the votes answer), with its own lookups. */
export function toApiPollAlone(app: App, poll: Poll, viewerId: Id | null): ApiPoll {
  const authorDomain = findAccountById(app.db, poll.accountId)?.domain ?? null;
  const codes = new Set(pollShortcodes(poll));
  const found = codes.size ? findEmojisByDomain(app.db, new Map([[authorDomain, codes]])) : new Map();
  const emoji = (code: string) => {
    const e = found.get(`${authorDomain ?? ""} ${code}`);
    return e ? toApiCustomEmoji(app, e) : undefined;
  };
  const viewer = viewerId ? { id: viewerId, choices: findOwnChoices(app.db, poll.id, viewerId) } : null;
  return toApiPoll(app, poll, viewer, emoji);
}
