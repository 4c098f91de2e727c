// Remote actor documents (AP §3.2) → a checked ParsedActor. Limits of AP §14; HTML through the
// shared remote sanitiser.
import { FederationError, type ApObject, type ParsedEmoji } from "../types.ts";
import { asArray, clip, dateOf, hasType, httpUrl, idOf, idsOf, isObject, sameOrigin, str, typesOf, urlOf } from "./common.ts";
import { parseEmojiTags } from "./emojis.ts";
import { sanitizeRemoteHtml } from "./html.ts";

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

/** A key an actor lists: embedded (with its PEM) or only referenced by id (PEM elsewhere). */
export interface ActorKey {
  id: string;
  pem: string | null;
}

export const ACTOR_TYPES = ["Person", "Service", "Application", "Group", "Organization"];

const MAX_NAME = 2048;
const MAX_NOTE = 20 * 1024;
// Mastodon's Account::Field::MAX_CHARACTERS_COMPAT: remote field names and values are cut here.
const MAX_FIELD = 2047;
const MAX_FIELDS = 50;
const MAX_ALIASES = 256;
const MAX_KEYS = 10;
// A username as Mastodon accepts it from remote servers (discovery.md §1.2), case-insensitive.
export const REMOTE_USERNAME_RE = /^[a-z0-9_]+([.-]+[a-z0-9_]+)*$/i;
const DOMAIN_RE = /^[a-z0-9.-]+(:\d{1,5})?$/i;

/** An http(s) URL kept verbatim: ids are compared as strings (AP §12), so never normalised. */
function exactUrl(v: unknown): string | undefined {
  return typeof v === "string" && httpUrl(v) !== undefined ? v : undefined;
}

/** `user@domain` when it is a well-formed handle (an `acct:` prefix is tolerated), else null. */
export function parseHandle(v: unknown): { username: string; domain: string } | null {
  if (typeof v !== "string" || v.length > 512) return null;
  const m = /^(?:acct:)?@?([^@\s]+)@([^@\s/]+)$/i.exec(v.trim());
  if (!m || !REMOTE_USERNAME_RE.test(m[1]) || !DOMAIN_RE.test(m[2])) return null;
  return { username: m[1], domain: m[2].toLowerCase() };
}

/** True when the document is an actor of a supported type. */
export function isActorDocument(doc: ApObject): boolean {
  return hasType(doc, ...ACTOR_TYPES);
}

/**
 * The keys of an actor document (AP §10.2): `publicKey` as an object, an id or a list of
 * either (≤ 10). Embedded keys count only when their `owner` is the actor, and every key id
 * must be on the actor's origin: otherwise one server could publish another's key id with a
 * key of its own, and be taken for it (or shadow it) when that key id signs.
 */
export function listActorKeys(doc: ApObject): ActorKey[] {
  const out: ActorKey[] = [];
  const actorId = typeof doc.id === "string" ? doc.id : "";
  for (const k of asArray(doc.publicKey).slice(0, MAX_KEYS)) {
    if (typeof k === "string") {
      const id = exactUrl(k);
      if (id && sameOrigin(id, actorId)) out.push({ id, pem: null });
      continue;
    }
    if (!isObject(k)) continue;
    const id = exactUrl(k.id);
    const pem = str(k.publicKeyPem);
    if (!id || idOf(k.owner) !== doc.id || !sameOrigin(id, actorId)) continue;
    out.push({ id, pem: pem ?? null });
  }
  return out;
}

/** The first Image's URL of `icon`/`image` (an Image, a list of them, or a URL string). */
function imageUrl(v: unknown): string | null {
  for (const item of asArray(v)) {
    // A bare string is the image's id; Mastodon dereferences it, we take it as the URL.
    const url = typeof item === "string" ? httpUrl(item) : isObject(item) ? urlOf(item.url) : undefined;
    if (url) return url;
  }
  return null;
}

/** Sanitised HTML of a bio or field value; HTML too deeply nested to sanitise is left out. */
function remoteHtml(html: string): string {
  try {
    return sanitizeRemoteHtml(html);
  } catch (e) {
    if (e instanceof FederationError) return "";
    throw e;
  }
}

function parseFields(attachment: unknown): { name: string; value: string }[] {
  const out: { name: string; value: string }[] = [];
  for (const a of asArray(attachment)) {
    if (out.length >= MAX_FIELDS) break;
    if (!isObject(a) || !hasType(a, "PropertyValue")) continue;
    if (typeof a.name !== "string" || typeof a.value !== "string") continue;
    out.push({ name: clip(a.name.trim(), MAX_FIELD), value: remoteHtml(clip(a.value.trim(), MAX_FIELD)) });
  }
  return out;
}

/** Checks and reads an actor document; throws FederationError(permanent) when it is not a usable actor. */
export function parseApActor(doc: ApObject): ParsedActor {
  const type = typesOf(doc).find((t) => ACTOR_TYPES.includes(t));
  if (!type) throw new FederationError("not an actor", true);
  const uri = exactUrl(doc.id);
  if (!uri) throw new FederationError("actor without a usable id", true);
  const inbox = exactUrl(idOf(doc.inbox));
  if (!inbox) throw new FederationError(`actor ${uri} has no inbox`, true);
  const webfinger = parseHandle(doc.webfinger);
  const preferred = str(doc.preferredUsername);
  const username = preferred ?? webfinger?.username;
  if (!username || username.length > MAX_NAME) throw new FederationError(`actor ${uri} has no username`, true);

  const keys = listActorKeys(doc);
  const key = keys.find((k) => k.pem !== null);
  const endpoints = isObject(doc.endpoints) ? doc.endpoints : {};
  const collection = (v: unknown) => exactUrl(idOf(v)) ?? null;
  const movedTo = collection(doc.movedTo);
  return {
    uri,
    type,
    username,
    webfinger: webfinger ? `${webfinger.username}@${webfinger.domain}` : null,
    displayName: clip(str(doc.name) ?? "", MAX_NAME),
    note: typeof doc.summary === "string" ? remoteHtml(clip(doc.summary, MAX_NOTE)) : "",
    url: urlOf(doc.url) ?? null,
    inbox,
    sharedInbox: collection(endpoints.sharedInbox) ?? collection(doc.sharedInbox),
    outbox: collection(doc.outbox),
    followers: collection(doc.followers),
    following: collection(doc.following),
    featured: collection(doc.featured),
    featuredTags: collection(doc.featuredTags),
    publicKeyId: key?.id ?? null,
    publicKeyPem: key?.pem ?? null,
    locked: doc.manuallyApprovesFollowers === true,
    // Mastodon reads all three as booleans defaulting to false.
    discoverable: doc.discoverable === true,
    indexable: doc.indexable === true,
    memorial: doc.memorial === true,
    bot: type === "Service" || type === "Application",
    suspended: doc.suspended === true,
    avatarUrl: imageUrl(doc.icon),
    headerUrl: imageUrl(doc.image),
    fields: parseFields(doc.attachment),
    emojis: parseEmojiTags(doc.tag),
    movedTo: movedTo === uri ? null : movedTo,
    alsoKnownAs: idsOf(doc.alsoKnownAs).filter((a) => exactUrl(a) !== undefined).slice(0, MAX_ALIASES),
    published: dateOf(doc.published) ?? null,
  };
}
