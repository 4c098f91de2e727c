// Shapes shared by the federation modules.

/** A JSON-LD / ActivityStreams document as received or sent (compact form, plain JSON). */
export type ApObject = Record<string, unknown>;

export const AS_PUBLIC = "https://www.w3.org/ns/activitystreams#Public";
export const AS_CONTEXT = "https://www.w3.org/ns/activitystreams";

/** Content type of everything we serve and POST. */
export const AP_CONTENT_TYPE = "application/activity+json; charset=utf-8";
/** Accept header of our fetches (Mastodon's generic fetch). */
export const AP_ACCEPT = 'application/activity+json, application/ld+json; profile="https://www.w3.org/ns/activitystreams"';

/**
 * A federation failure with a reason we can log and, on the inbox, answer with. `permanent`
 * tells jobs not to retry (bad document, refused by policy); otherwise the cause is transient
 * (network, 5xx) and a retry may succeed.
 */
export class FederationError extends Error {
  override name = "FederationError";
  constructor(
    message: string,
    readonly permanent = false,
  ) {
    super(message);
  }
}

/** A custom emoji as it arrives in a `tag` array (toot:Emoji). */
export interface ParsedEmoji {
  shortcode: string;
  /** The Emoji object's id, when it has one. */
  uri: string | null;
  url: string;
  /** `updated`, ms; null when absent. */
  updated: number | null;
}
