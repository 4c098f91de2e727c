// JSON-LD @context arrays of the documents we serve and send (AP §3.1, §4.1, §15). Peers
// read our documents as plain JSON keyed on these compact names, and Mastodon ignores any
// document whose context lacks the AS URI, so every document starts with it.
import type { ApObject } from "../types.ts";
import { AS_CONTEXT } from "../types.ts";

export const SECURITY_CONTEXT = "https://w3id.org/security/v1";
export const WEBFINGER_CONTEXT = "https://purl.archive.org/socialweb/webfinger";

// Terms shared by actors and notes.
const TOOT = { toot: "http://joinmastodon.org/ns#" };
const TAG_TERMS = {
  Hashtag: "as:Hashtag",
  Emoji: "toot:Emoji",
  focalPoint: { "@container": "@list", "@id": "toot:focalPoint" },
};

const ACTOR_TERMS = {
  manuallyApprovesFollowers: "as:manuallyApprovesFollowers",
  ...TOOT,
  featured: { "@id": "toot:featured", "@type": "@id" },
  featuredTags: { "@id": "toot:featuredTags", "@type": "@id" },
  alsoKnownAs: { "@id": "as:alsoKnownAs", "@type": "@id" },
  movedTo: { "@id": "as:movedTo", "@type": "@id" },
  schema: "http://schema.org#",
  PropertyValue: "schema:PropertyValue",
  value: "schema:value",
  discoverable: "toot:discoverable",
  suspended: "toot:suspended",
  memorial: "toot:memorial",
  indexable: "toot:indexable",
  attributionDomains: { "@id": "toot:attributionDomains", "@container": "@set" },
  ...TAG_TERMS,
};

const NOTE_TERMS = {
  ostatus: "http://ostatus.org#",
  atomUri: "ostatus:atomUri",
  inReplyToAtomUri: "ostatus:inReplyToAtomUri",
  conversation: "ostatus:conversation",
  sensitive: "as:sensitive",
  ...TOOT,
  votersCount: "toot:votersCount",
  blurhash: "toot:blurhash",
  ...TAG_TERMS,
};

/** Actor documents (Person, Service, the instance actor): AP §3.1 verbatim. */
export const ACTOR_CONTEXT: readonly unknown[] = [AS_CONTEXT, SECURITY_CONTEXT, WEBFINGER_CONTEXT, ACTOR_TERMS];

/** Note documents: AP §4.1 verbatim. */
export const NOTE_CONTEXT: readonly unknown[] = [AS_CONTEXT, NOTE_TERMS];

/** Collections and plain objects (Emoji, collections of ids). */
export const BASIC_CONTEXT: readonly unknown[] = [AS_CONTEXT, { ...TOOT, ...TAG_TERMS }];

/**
 * Every outgoing activity: the union of the terms above, so an activity may embed an actor,
 * a Note or a Tombstone and stay readable, and a later LD signature finds security/v1.
 */
export const ACTIVITY_CONTEXT: readonly unknown[] = [
  AS_CONTEXT,
  SECURITY_CONTEXT,
  WEBFINGER_CONTEXT,
  { ...ACTOR_TERMS, ...NOTE_TERMS },
];

/** `doc` with `context` first (documents read better with @context on top). */
export function withContext(context: readonly unknown[], doc: ApObject): ApObject {
  const { "@context": _drop, ...rest } = doc;
  return { "@context": context, ...rest };
}

/** An embedded object never carries its own @context. */
export function withoutContext(doc: ApObject): ApObject {
  const { "@context": _drop, ...rest } = doc;
  return rest;
}

/** ISO 8601 UTC with seconds precision, as Mastodon writes `published`/`updated`. */
export function apTime(ms: number): string {
  return new Date(ms).toISOString().replace(/\.\d{3}Z$/, "Z");
}
