// Shared fixtures for the relationships tests.
import type { App } from "../../src/app.ts";
import type { Id } from "../../src/lib/ids.ts";
import { findAccountById, insertAccount, type Account } from "../../src/storage/accounts.ts";
import type { TestServer, TestUser } from "../helpers/server.ts";

/**
 * A remote account row, as federation will create it. Remote actors only arrive through
 * federation, which does not exist yet; until then this is the accepted way to make one.
 */
export function remoteAccount(app: App, username: string, domain: string): Account {
  const id = app.ids.next();
  const now = app.now();
  insertAccount(app.db, {
    id,
    username,
    domain,
    uri: `https://${domain}/users/${username}`,
    url: `https://${domain}/@${username}`,
    inboxUrl: `https://${domain}/users/${username}/inbox`,
    createdAt: now,
    updatedAt: now,
  });
  return findAccountById(app.db, id)!;
}

export async function relationship(s: TestServer, who: TestUser, targetId: Id): Promise<any> {
  const [r] = await s.api(who, "GET", `/api/v1/accounts/relationships?id[]=${targetId}`);
  return r;
}

export function counts(app: App, id: Id): { followers: number; following: number } {
  const a = findAccountById(app.db, id)!;
  return { followers: a.followersCount, following: a.followingCount };
}

export async function setLocked(s: TestServer, who: TestUser, locked: boolean): Promise<void> {
  await s.api(who, "PATCH", "/api/v1/accounts/update_credentials", { locked });
}

/** The URLs of a Link header, by rel. */
export function links(header: string | null): Record<string, URL> {
  const out: Record<string, URL> = {};
  for (const part of (header ?? "").split(",")) {
    const m = /<([^>]+)>;\s*rel="(\w+)"/.exec(part.trim());
    if (m) out[m[2]] = new URL(m[1]);
  }
  return out;
}

/** Path + query of a Link URL, for s.req. */
export const pathOf = (u: URL) => u.pathname + u.search;
