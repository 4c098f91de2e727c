// Remote statuses by uri or URL (search with resolve=true, thread parents, boosts).
import type { App } from "../../app.ts";
import type { Status } from "../../storage/statuses.ts";
import { findStatusByLink } from "../../storage/status-urls.ts";
import { isSuspendedDomain } from "../domain-policy.ts";
import { fetchApObject } from "../fetch-object.ts";
import { hasType, hostOf, httpUrl, idOf, isObject } from "../parse/common.ts";
import { isNoteLike, parseApNote, type ParsedNote } from "../parse/note.ts";
import { createRemoteStatus } from "../remote-statuses.ts";
import { type ApObject, FederationError } from "../types.ts";
import { resolveAccountByUri } from "./accounts.ts";

export interface ResolveStatusOptions {
  /** How many parents up a thread the status is fetched as. */
  threadDepth?: number;
  /** Stored as backfill (remote-statuses.ts): no fan-out, stream or delivery. */
  backfill?: boolean;
  /** Stops the fetch where it is (a backfill job's time limit). */
  signal?: AbortSignal;
}

const sameHost = (a: string | null | undefined, b: string | null | undefined) => !!a && !!b && hostOf(a) === hostOf(b);

/**
 * The Note-like object of a fetched document: the document itself, or the object a Create
 * embeds when the activity and the object come from the actor's own host (AP §12).
 */
function noteOf(doc: ApObject): ApObject | undefined {
  if (isNoteLike(doc)) return doc;
  if (hasType(doc, "Create") && isObject(doc.object) && isNoteLike(doc.object)) {
    const actor = idOf(doc.actor);
    if (sameHost(actor, doc.id as string) && sameHost(actor, idOf(doc.object))) return doc.object;
  }
  return undefined;
}

function parseNote(doc: ApObject): ParsedNote | undefined {
  try {
    return parseApNote(doc);
  } catch (e) {
    if (e instanceof FederationError && e.permanent) return undefined;
    throw e;
  }
}

/**
 * The status of a Note-like document (or a Create embedding one) fetched from its own id:
 * the stored one, else its author is resolved and it is stored. Undefined when unusable.
 */
export async function resolveStatusFromDocument(app: App, doc: ApObject, opts: ResolveStatusOptions = {}): Promise<Status | undefined> {
  const known = typeof doc.id === "string" ? findStatusByLink(app.db, doc.id, { remoteOnly: true }) : undefined;
  if (known) return known;
  const object = noteOf(doc);
  const note = object && parseNote(object);
  // A status fetched directly must be attributed to an actor on its own host (AP §12).
  if (!note?.attributedTo || !sameHost(note.attributedTo, note.uri)) return undefined;
  const author = await resolveAccountByUri(app, note.attributedTo);
  if (!author || author.suspendedAt !== null) return undefined;
  return createRemoteStatus(app, note, author, { fetched: true, threadDepth: opts.threadDepth, backfill: opts.backfill });
}

/**
 * A status by its uri (or web URL): stored, else fetched from its origin and stored through
 * remote-statuses.ts. Undefined when it does not exist or is not a usable status.
 */
export async function resolveStatusByUri(app: App, uri: string, opts: ResolveStatusOptions = {}): Promise<Status | undefined> {
  if (!httpUrl(uri)) return undefined;
  const stored = findStatusByLink(app.db, uri, { remoteOnly: true });
  if (stored) return stored;
  // Our own posts are all stored; a remote copy of one cannot exist.
  if (hostOf(uri) === hostOf(app.baseUrl) || isSuspendedDomain(app, uri)) return undefined;
  try {
    // A web URL answers with the canonical object, which is fetched again from its id.
    const doc = await fetchApObject(app, uri, { exactId: false, signal: opts.signal });
    return doc && (await resolveStatusFromDocument(app, doc, opts));
  } catch (e) {
    if (e instanceof FederationError && e.permanent) return undefined;
    throw e;
  }
}
