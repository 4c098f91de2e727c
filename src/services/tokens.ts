import type { App } from "../app.ts";
import { randomToken, sha256Hex } from "../lib/crypto.ts";
import type { Id } from "../lib/ids.ts";
import { type Application, findSuperappByName, insertApplication } from "../storage/applications.ts";
import { insertToken, liveUserTokenIds, touchToken, type Token } from "../storage/tokens.ts";
import { recordActivityDay, type User } from "../storage/users.ts";
import { recordUserIp } from "../storage/user-ips.ts";

/** The built-in web app (Mastodon's "Web" superapp): browser sessions get its tokens. */
export const WEB_APP = "Web";
/** The built-in app that owns tokens made by `roost token create`. */
export const CLI_APP = "Roost CLI";

const OOB = "urn:ietf:wg:oauth:2.0:oob";

/** Finds or creates a built-in application (superapp: never asks for consent). */
export function ensureBuiltinApp(app: App, name: string): Application {
  const existing = findSuperappByName(app.db, name);
  if (existing) return existing;
  const a: Application = {
    id: app.ids.next(),
    name,
    website: null,
    redirectUris: [OOB],
    scopes: ["read", "write", "follow", "push"],
    clientId: randomToken(),
    // Nobody knows this secret: built-in apps are never used through /oauth/token.
    clientSecretHash: sha256Hex(randomToken()),
    superapp: true,
    ownerUserId: null,
    createdAt: app.now(),
  };
  insertApplication(app.db, a);
  return a;
}

/** Issues an access token; returns the token string (only its hash is stored). */
export function issueToken(
  app: App,
  opts: { userId: Id | null; applicationId: Id; scopes: string[] },
): { token: string; id: Id; createdAt: number } {
  const token = randomToken();
  const id = app.ids.next();
  const createdAt = app.now();
  insertToken(app.db, {
    id,
    applicationId: opts.applicationId,
    userId: opts.userId,
    tokenHash: sha256Hex(token),
    scopes: opts.scopes,
    createdAt,
  });
  return { token, id, createdAt };
}

const DAY = 86_400_000;

/** Token last-use and the user's activity day, written at most once a day each (per request, from http/auth.ts). */
export function noteTokenUse(app: App, token: Token, user: User | null, now: number, ip: string | null): void {
  if (token.lastUsedAt === null || now - token.lastUsedAt > DAY) {
    touchToken(app.db, token.id, now, ip);
    // The admin account filters search these (Admin::Account.ips).
    if (user) recordUserIp(app.db, user.id, ip, now);
  }
  if (user) {
    const day = now - (now % DAY);
    const key = `activity:${user.id}`;
    if (app.cache.get(key) !== day) {
      recordActivityDay(app.db, user.id, day);
      app.cache.set(key, day);
    }
  }
}

/** The token ids among `ids` that may keep their streaming connections open (storage/tokens.ts liveUserTokenIds). */
export function usableTokenIds(app: App, ids: Iterable<Id>): Set<Id> {
  return liveUserTokenIds(app.db, ids, app.now());
}
