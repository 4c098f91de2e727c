// Remote actor documents (AP §3.2) → a checked ParsedActor.
import type { ApObject, ParsedEmoji } from "../types.ts";

export interface ParsedActor {
  uri: string;
  /** Person, Service, Application, Group or Organization. */
  type: string;
  /** preferredUsername. */
  username: string;
  /** FEP-2c59 `webfinger` (user@domain) when present and well-formed. */
  webfinger: string | null;
  displayName: string;
  /** Sanitised HTML. */
  note: string;
  url: string | null;
  inbox: string;
  sharedInbox: string | null;
  outbox: string | null;
  followers: string | null;
  following: string | null;
  featured: string | null;
  featuredTags: string | null;
  publicKeyId: string | null;
  publicKeyPem: string | null;
  locked: boolean;
  discoverable: boolean | null;
  indexable: boolean;
  memorial: boolean;
  /** Service or Application. */
  bot: boolean;
  suspended: boolean;
  avatarUrl: string | null;
  headerUrl: string | null;
  /** Profile fields, values sanitised (≤ 50). */
  fields: { name: string; value: string }[];
  emojis: ParsedEmoji[];
  movedTo: string | null;
  alsoKnownAs: string[];
  published: number | null;
}

/** True when the document is an actor of a supported type. */
export function isActorDocument(_doc: ApObject): boolean {
  throw new Error("isActorDocument: not implemented");
}

/** Checks and reads an actor document; throws FederationError(permanent) when it is not a usable actor. */
export function parseApActor(_doc: ApObject): ParsedActor {
  throw new Error("parseApActor: not implemented");
}
