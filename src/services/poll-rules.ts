// What a local poll may be (Mastodon's Poll model with PollOptionsValidator and
// PollExpirationValidator), with the instance's limits from config (also shown in
// /api/v2/instance `configuration.polls`).
import type { App } from "../app.ts";
import { unprocessable } from "../errors.ts";

/**
 * `poll[...]` of POST/PUT /api/v1/statuses. Plain JSON data: a scheduled post keeps it as it
 * was submitted and publishes it later through createStatus.
 */
export interface PollInput {
  options: string[];
  /** Seconds from publication. */
  expiresIn: number;
  multiple: boolean;
  hideTotals: boolean;
}

/** What a request sent, before the rules: `expires_in` may be missing. */
export type PollParams = Omit<PollInput, "expiresIn"> & { expiresIn: number | null };

// Ruby's String#strip removes ASCII whitespace and NUL; `compact_blank` then drops options
// that are blank by Unicode's definition.
const rubyStrip = (s: string) => s.replace(/^[\t\n\v\f\r \0]+|[\t\n\v\f\r \0]+$/g, "");

/** Mastodon's Poll#prepare_options: options stripped, blank ones dropped. */
export function prepareOptions(options: readonly string[]): string[] {
  return options.map(rubyStrip).filter((o) => !/^\s*$/u.test(o));
}

let segmenter: Intl.Segmenter | undefined;

/** More than `max` grapheme clusters (Ruby's each_grapheme_cluster.size > max)? */
function longerThan(s: string, max: number): boolean {
  if (s.length <= max) return false; // a grapheme is at least one UTF-16 unit
  // Node 20's segmenter is quadratic on long strings: a text this long is over any limit anyway.
  if (s.length > max * 64) return true;
  segmenter ??= new Intl.Segmenter(undefined, { granularity: "grapheme" });
  let n = 0;
  for (const _ of segmenter.segment(s)) if (++n > max) return true;
  return false;
}

/** The full messages Rails would list for a new local poll, in Mastodon's order (empty: valid). */
export function pollErrors(app: App, p: { options: readonly string[]; expiresIn: number | null }): string[] {
  const c = app.config;
  const options = prepareOptions(p.options);
  const errors: string[] = [];
  if (options.length === 0) errors.push("Poll options can't be blank");
  if (options.length < 2) errors.push("Poll options must have more than one item");
  if (options.length > c.maxPollOptions) errors.push(`Poll options can't contain more than ${c.maxPollOptions} items`);
  if (options.some((o) => longerThan(o, c.maxPollOptionChars))) {
    errors.push(`Poll options cannot be longer than ${c.maxPollOptionChars} characters each`);
  }
  if (new Set(options).size !== options.length) errors.push("Poll options contain duplicate items");
  if (p.expiresIn === null) errors.push("Poll expires at can't be blank");
  else {
    if (p.expiresIn > c.maxPollExpiration) errors.push("Poll expires at is too far into the future");
    if (p.expiresIn < c.minPollExpiration) errors.push("Poll expires at is too soon");
  }
  return errors;
}

/** Throws Mastodon's 422 (`Validation failed: Poll options ...`) unless the poll is valid. */
export function validatePoll(app: App, p: { options: readonly string[]; expiresIn: number | null }): void {
  const errors = pollErrors(app, p);
  if (errors.length) throw unprocessable(`Validation failed: ${errors.join(", ")}`);
}

/** A request's poll as PollInput, or Mastodon's 422 when it breaks a rule. */
export function requirePollInput(app: App, p: PollParams): PollInput {
  validatePoll(app, p);
  return { options: [...p.options], expiresIn: p.expiresIn!, multiple: p.multiple, hideTotals: p.hideTotals };
}

/** A status has media or a poll, not both: Mastodon before 4.6 refuses with its media wording (PostStatusService#validate_media!). */
export function validateNoMediaWithPoll(mediaIds: readonly string[] | undefined, poll: unknown): void {
  if (poll && mediaIds && mediaIds.length > 0) throw unprocessable("Cannot attach more than 4 files");
}
