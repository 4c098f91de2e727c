// https://docs.joinmastodon.org/api/oauth-scopes/ — the scope catalogue (Mastodon 4.6).
const READ = ["accounts", "blocks", "bookmarks", "collections", "favourites", "filters", "follows", "lists", "mutes", "notifications", "search", "statuses"];
const WRITE = ["accounts", "blocks", "bookmarks", "collections", "conversations", "favourites", "filters", "follows", "lists", "media", "mutes", "notifications", "reports", "statuses"];
const ADMIN = ["accounts", "reports", "domain_allows", "domain_blocks", "ip_blocks", "email_domain_blocks", "canonical_email_blocks"];
const FOLLOW_CHILDREN = ["read:blocks", "read:follows", "read:mutes", "write:blocks", "write:follows", "write:mutes"];

export const ALL_SCOPES: readonly string[] = [
  "read",
  "write",
  "follow",
  "push",
  "profile",
  ...READ.map((s) => `read:${s}`),
  ...WRITE.map((s) => `write:${s}`),
  "admin:read",
  "admin:write",
  ...ADMIN.map((s) => `admin:read:${s}`),
  ...ADMIN.map((s) => `admin:write:${s}`),
];
const KNOWN = new Set(ALL_SCOPES);

export const DEFAULT_SCOPES = ["read"];

export function isKnownScope(s: string): boolean {
  return KNOWN.has(s);
}

/** Splits a scope string on spaces or '+' (some clients send `read+write` literally). */
export function parseScopes(s: string | undefined | null): string[] {
  if (!s) return [];
  return [...new Set(s.split(/[\s+]+/).filter(Boolean))];
}

/** The broad scopes that grant `scope` (besides itself). */
function parentsOf(scope: string): string[] {
  const out: string[] = [];
  if (scope.startsWith("admin:read:")) out.push("admin:read");
  else if (scope.startsWith("admin:write:")) out.push("admin:write");
  else if (scope.startsWith("read:")) out.push("read");
  else if (scope.startsWith("write:")) out.push("write");
  if (FOLLOW_CHILDREN.includes(scope)) out.push("follow");
  return out;
}

/**
 * True when the token's scopes satisfy any one of `accepted`. A parent scope grants its
 * children (read → read:*, follow → the relationship scopes); `write` does not grant `read`,
 * and `profile` is granted only by itself.
 */
export function scopesSatisfy(tokenScopes: readonly string[], accepted: readonly string[]): boolean {
  for (const need of accepted) {
    if (tokenScopes.includes(need)) return true;
    for (const p of parentsOf(need)) if (tokenScopes.includes(p)) return true;
  }
  return false;
}

/** Every requested scope is granted by the registered (app) scopes. */
export function scopesSubset(requested: readonly string[], granted: readonly string[]): boolean {
  return requested.every((s) => granted.includes(s) || parentsOf(s).some((p) => granted.includes(p)));
}
