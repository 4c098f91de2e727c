import type { App } from "../app.ts";
import { deepFreeze, findRowCache, type RowCacheSpec } from "../storage/row-cache.ts";
import { findTokenWithOwner, type TokenOwner } from "../storage/tokens.ts";

// Authentication runs on every request and reads three wide rows (token, user, and account
// with its keys). They are kept per token hash until any of those rows changes: a revocation
// drops its token at once; a change to any user or account (counters included) drops every
// entry; a commit by another process (a `roost` command) empties the cache before the next
// lookup. Expiry is still checked by the caller on each request. Requests share the entries,
// hence frozen.

export const TOKEN_OWNERS_CACHE: RowCacheSpec = {
  name: "token-owners",
  max: 1024,
  watches: [
    ["oauth_tokens", "token_hash"],
    ["users", null],
    ["accounts", null],
  ],
};

export function findTokenOwnerCached(app: App, tokenHash: string): TokenOwner | undefined {
  const cache = findRowCache<TokenOwner>(app, TOKEN_OWNERS_CACHE);
  if (!cache) return findTokenWithOwner(app.db, tokenHash);
  cache.sync();
  const hit = cache.get(tokenHash);
  if (hit) return hit;
  // Unknown tokens are not remembered: guessing must not fill the cache.
  const found = findTokenWithOwner(app.db, tokenHash);
  if (found) cache.set(tokenHash, deepFreeze(found));
  return found;
}
