// ActivityPub and web URLs of local objects. Stored on the rows when created (an account's
// uri never changes), and built here only, so every module agrees on them.

export function localActorUrls(baseUrl: string, username: string) {
  const uri = `${baseUrl}/users/${username}`;
  return {
    uri,
    url: `${baseUrl}/@${username}`,
    inboxUrl: `${uri}/inbox`,
    sharedInboxUrl: `${baseUrl}/inbox`,
    outboxUrl: `${uri}/outbox`,
    followersUrl: `${uri}/followers`,
    followingUrl: `${uri}/following`,
    featuredUrl: `${uri}/collections/featured`,
    featuredTagsUrl: `${uri}/collections/tags`,
    publicKeyId: `${uri}#main-key`,
  };
}

export const localStatusUri = (baseUrl: string, username: string, id: string) => `${baseUrl}/users/${username}/statuses/${id}`;
export const localStatusUrl = (baseUrl: string, username: string, id: string) => `${baseUrl}/@${username}/${id}`;
export const tagUrl = (baseUrl: string, name: string) => `${baseUrl}/tags/${encodeURIComponent(name)}`;
/** Public URL of a file stored under the data dir's media/ folder. */
export const mediaUrl = (baseUrl: string, file: string) => `${baseUrl}/system/${file}`;

/** True when both URLs name the same host (and port). Malformed URLs never match. */
export function sameHost(a: string, b: string): boolean {
  try {
    return new URL(a).host.toLowerCase() === new URL(b).host.toLowerCase();
  } catch {
    return false;
  }
}
/** A local profile filtered by a tag (Mastodon's short_account_tag_url): what a featured tag links to. */
export const accountTagUrl = (baseUrl: string, username: string, tagName: string) =>
  `${baseUrl}/@${username}/tagged/${encodeURIComponent(tagName)}`;
