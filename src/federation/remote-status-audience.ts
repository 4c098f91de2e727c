// Who a remote status is for (AP §4.3 incoming): its visibility, the mentions that are shown
// and notified, the silent ones that only grant access, and whether an inbox push is wanted.
import type { App } from "../app.ts";
import { mapLimited } from "../lib/map-limited.ts";
import type { Account } from "../storage/accounts.ts";
import { findLocalAccountsByUris, hasLocalFollowers } from "../storage/remote-statuses.ts";
import type { Status, Visibility } from "../storage/statuses.ts";
import type { ParsedNote } from "./parse/note.ts";
import { visibilityFromAddressing } from "./parse/addressing.ts";
import { resolveAccountByUri } from "./resolve/accounts.ts";

/** Mention tags resolved per status: each unknown one may cost a fetch (AP §12 caps discoveries). */
export const MAX_RESOLVED_MENTIONS = 20;

/** What the database alone says about a note's local audience (no network). */
export interface LocalAudience {
  /** Local accounts in `to`/`cc`, plus the owner of the personal inbox it came through. */
  addressed: Account[];
  /** Local accounts among the Mention tags. */
  tagged: Account[];
}

export function localAudience(app: App, note: ParsedNote, recipient?: Account): LocalAudience {
  const addressing = new Set([...note.to, ...note.cc]);
  const hrefs = new Set(note.mentions.map((m) => m.href));
  const local = findLocalAccountsByUris(app.db, [...new Set([...addressing, ...hrefs])]);
  const addressed = local.filter((a) => addressing.has(a.uri));
  if (recipient && !addressed.some((a) => a.id === recipient.id)) addressed.push(recipient);
  return { addressed, tagged: local.filter((a) => hrefs.has(a.uri)) };
}

/**
 * The inbox acceptance filter (AP §4.3): a pushed post is kept only when someone here has a
 * reason to see it. Public and unlisted: local followers of the author, a reply to a local or
 * locally followed author, or local addressees; private: followers or addressees; direct:
 * addressees. (Relays are not supported, so "came through a relay" never applies.)
 */
export function isWantedHere(app: App, author: Account, visibility: Visibility, local: LocalAudience, parent: Status | undefined): boolean {
  if (local.addressed.length > 0 || local.tagged.length > 0) return true;
  if (visibility === "direct") return false;
  if (hasLocalFollowers(app.db, author.id)) return true;
  if (visibility === "private" || !parent) return false;
  return parent.local || hasLocalFollowers(app.db, parent.accountId);
}

// Unknown mentioned actors are fetched a few at a time, within one time budget per post: a
// post tagging many actors on servers that never answer must not hold an inbox job for minutes.
const MENTION_CONCURRENCY = 5;
const MENTION_BUDGET_MS = 15_000;

/** `p`, or undefined once `ms` have passed (the work itself goes on and may still store its result). */
function within<T>(p: Promise<T>, ms: number): Promise<T | undefined> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<undefined>((resolve) => (timer = setTimeout(() => resolve(undefined), ms)));
  return Promise.race([p, late]).finally(() => clearTimeout(timer));
}

/**
 * The accounts of the Mention tags: local ones from `local`, the others through
 * resolveAccountByUri (known, else fetched), at most MAX_RESOLVED_MENTIONS. A tag that cannot
 * be resolved in time is skipped, as is a suspended account.
 */
export async function resolveMentions(app: App, note: ParsedNote, local: LocalAudience): Promise<Account[]> {
  const deadline = performance.now() + MENTION_BUDGET_MS;
  const found = await mapLimited(note.mentions.slice(0, MAX_RESOLVED_MENTIONS), MENTION_CONCURRENCY, async (m) => {
    const known = local.tagged.find((a) => a.uri === m.href);
    if (known) return known;
    const left = deadline - performance.now();
    if (left <= 0) return undefined;
    try {
      return await within(resolveAccountByUri(app, m.href), left);
    } catch (err) {
      app.log.debug("mention not resolved", { href: m.href, err });
      return undefined;
    }
  });
  const out = new Map<string, Account>();
  for (const account of found) if (account && account.suspendedAt === null) out.set(account.id, account);
  return [...out.values()];
}

export interface RemoteAudience {
  visibility: Visibility;
  limited: boolean;
  /** Shown in the status and notified (local ones): tagged and addressed. */
  mentions: Account[];
  /** Access only: local addressees that are not tagged, and local tagged ones that are not addressed. */
  silentMentions: Account[];
}

/**
 * Mastodon's process_audience: tags make mentions; addressed local accounts that are not tagged
 * become silent mentions, which turn a direct post into a limited one; a tagged local account
 * that is not addressed is not notified (kept silent: roost has no "shown but not notified").
 */
export function remoteAudience(note: ParsedNote, author: Account, local: LocalAudience, tagged: Account[]): RemoteAudience {
  const addressedIds = new Set(local.addressed.map((a) => a.id));
  const mentions: Account[] = [];
  const silentMentions: Account[] = [];
  for (const a of tagged) {
    if (a.domain === null && !addressedIds.has(a.id)) silentMentions.push(a);
    else mentions.push(a);
  }
  const taggedIds = new Set(tagged.map((a) => a.id));
  const untagged = local.addressed.filter((a) => !taggedIds.has(a.id) && a.id !== author.id);
  silentMentions.push(...untagged);
  const visibility = visibilityFromAddressing(note.to, note.cc, author.followersUrl);
  return { visibility, limited: visibility === "direct" && untagged.length > 0, mentions, silentMentions };
}
