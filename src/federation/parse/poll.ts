// A Question's poll (AP §4.6), read as Mastodon's ActivityPub::Parser::PollParser reads it,
// which covers the shapes of Mastodon, GoToSocial, Akkoma/Pleroma and Misskey:
// - options from `anyOf` (multiple choice) or `oneOf`, the title from `name`, else `content`
//   (at most 500);
// - tallies from each option's `replies.totalItems` (GoToSocial leaves `replies` out while
//   totals are hidden: 0), Misskey's `_misskey_votes` when that is missing;
// - the end from `closed` (a date; any other truthy value means "closed now"; Pleroma and
//   Akkoma write their end time there even while open), else `endTime` (Misskey sends null
//   for a poll without an end);
// - `votersCount` (Mastodon, GoToSocial, Akkoma; Misskey has none). Akkoma's `voters` list is
//   an internal field it strips before sending.
// Votes are Creates of Notes and are recognised in inbox/vote.ts, not here.
import type { ApObject } from "../types.ts";
import { asArray, dateOf, hasType, isObject } from "./common.ts";

export interface ParsedPoll {
  options: string[];
  tallies: number[];
  multiple: boolean;
  /** ms; null: no end. */
  expiresAt: number | null;
  /** `closed` said "closed" without a date: the end is the time the document is applied. */
  closedNow: boolean;
  votersCount: number | null;
}

/** Mastodon considers this many options at most (AP §4.6). */
const MAX_OPTIONS = 500;

const count = (v: unknown): number | null => (typeof v === "number" && Number.isSafeInteger(v) && v >= 0 ? v : null);

function titleOf(item: ApObject): string | undefined {
  if (typeof item.name === "string" && item.name.trim() !== "") return item.name;
  return typeof item.content === "string" ? item.content : undefined;
}

/** The poll of a Question document; null when it is not a Question or has no option list. */
export function parseApPoll(doc: ApObject): ParsedPoll | null {
  if (!hasType(doc, "Question")) return null;
  // Akkoma's validator gives a Question both lists, the unused one empty: an empty `anyOf` beside
  // a `oneOf` is not a multiple-choice poll without options (Mastodon would take it for one).
  const multiple = Array.isArray(doc.anyOf) && (doc.anyOf.length > 0 || !Array.isArray(doc.oneOf));
  const items = multiple ? doc.anyOf : doc.oneOf;
  if (!Array.isArray(items)) return null;
  const options: string[] = [];
  const tallies: number[] = [];
  for (const item of items.slice(0, MAX_OPTIONS)) {
    if (!isObject(item)) continue;
    const title = titleOf(item);
    if (title === undefined) continue;
    options.push(title);
    const replies = isObject(item.replies) ? item.replies : undefined;
    tallies.push(count(replies?.totalItems) ?? count(item._misskey_votes) ?? 0);
  }
  let expiresAt: number | null = null;
  let closedNow = false;
  const closed = asArray(doc.closed)[0];
  if (typeof closed === "string") expiresAt = dateOf(closed) ?? null;
  else if (closed !== undefined && closed !== null && closed !== false) closedNow = true;
  else expiresAt = dateOf(doc.endTime) ?? null;
  return { options, tallies, multiple, expiresAt, closedNow, votersCount: count(doc.votersCount) };
}
