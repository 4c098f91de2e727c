// Visibility → `to`/`cc`, exactly as Mastodon writes them (AP §4.3, §5.7 for boosts).
import type { App } from "../../app.ts";
import { readTx } from "../../db/db.ts";
import { type Account, findAccountById } from "../../storage/accounts.ts";
import { followersOrRequestersAmong } from "../../storage/ap-objects.ts";
import { findMentionedAccounts } from "../../storage/mentions.ts";
import { findStatusById, type Status, type Visibility } from "../../storage/statuses.ts";
import { AS_PUBLIC } from "../types.ts";

export interface Addressing {
  to: string[];
  cc: string[];
}

export interface AddressingInput {
  visibility: Visibility;
  author: Account;
  /** Shown mentions of the status, in mention order. */
  mentions: Account[];
  /** A boost: the boosted post's author, who comes first in `cc`. */
  boostedAuthorUri?: string | null;
  /**
   * For a silenced author: the mentioned accounts that follow it or asked to; only those
   * are addressed. Undefined when the author is not silenced.
   */
  silencedAudience?: Set<string>;
}

export const followersUri = (a: Account) => a.followersUrl ?? `${a.uri}/followers`;

/** Each mention's actor id, and a Group's followers collection right after it. */
function mentionUris(i: AddressingInput): string[] {
  const out: string[] = [];
  for (const m of i.mentions) {
    if (i.silencedAudience && !i.silencedAudience.has(m.id)) continue;
    out.push(m.uri);
    if (m.actorType === "Group" && m.followersUrl) out.push(m.followersUrl);
  }
  return out;
}

/** The pure rule: callers that already hold the mentions (pages) use this directly. */
export function addressingFor(i: AddressingInput): Addressing {
  const followers = followersUri(i.author);
  const mentioned = mentionUris(i);
  const cc: string[] = i.boostedAuthorUri ? [i.boostedAuthorUri] : [];
  switch (i.visibility) {
    case "public":
      return { to: [AS_PUBLIC], cc: dedupe([...cc, followers, ...mentioned]) };
    case "unlisted":
      return { to: [followers], cc: dedupe([...cc, AS_PUBLIC, ...mentioned]) };
    case "private":
      return { to: [followers], cc: dedupe([...cc, ...mentioned]) };
    case "direct":
      return { to: dedupe(mentioned), cc: dedupe(cc) };
  }
}

/** Loads what the rule needs (author, mentions, boosted author) for one status. */
export function addressingOf(app: App, status: Status): Addressing {
  return readTx(app.db, () => {
    const author = findAccountById(app.db, status.accountId);
    if (!author) throw new Error(`addressingOf: author ${status.accountId} of status ${status.id} is missing`);
    if (status.reblogOfId) {
      const original = findStatusById(app.db, status.reblogOfId);
      const originalAuthor = original && findAccountById(app.db, original.accountId);
      return addressingFor({ visibility: status.visibility, author, mentions: [], boostedAuthorUri: originalAuthor?.uri ?? null });
    }
    const mentions = findMentionedAccounts(app.db, [status.id]).get(status.id) ?? [];
    return addressingFor({ visibility: status.visibility, author, mentions, silencedAudience: silencedAudienceOf(app, author, mentions) });
  });
}

/** The audience restriction of a silenced author (undefined when it is not silenced). */
export function silencedAudienceOf(app: App, author: Account, mentions: Account[]): Set<string> | undefined {
  if (author.silencedAt === null) return undefined;
  return followersOrRequestersAmong(app.db, author.id, mentions.map((m) => m.id));
}

function dedupe(list: string[]): string[] {
  return [...new Set(list)];
}
