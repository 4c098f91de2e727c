// Outgoing activities (AP §5), exactly Mastodon's shapes and ids. Every builder returns a
// complete document with ACTIVITY_CONTEXT; embedded objects carry none.
import type { App } from "../../app.ts";
import { readTx } from "../../db/db.ts";
import type { Id } from "../../lib/ids.ts";
import { type Account, findAccountById, findAccountsByIds } from "../../storage/accounts.ts";
import type { Block } from "../../storage/blocks.ts";
import type { FollowRecord } from "../../storage/follows.ts";
import { findStatusesByIds, type Status } from "../../storage/statuses.ts";
import { instanceActorUri } from "../instance-actor.ts";
import { AS_PUBLIC, type ApObject } from "../types.ts";
import { renderActor } from "./actor.ts";
import { addressingFor } from "./addressing.ts";
import { ACTIVITY_CONTEXT, apTime, withContext } from "./context.ts";
import { loadNoteBatch, renderNote } from "./note.ts";

const unix = (ms: number) => Math.floor(ms / 1000);
const activity = (doc: ApObject) => withContext(ACTIVITY_CONTEXT, doc);

function requireAccount(app: App, id: Id): Account {
  const a = findAccountById(app.db, id);
  if (!a) throw new Error(`account ${id} is missing`);
  return a;
}

function createOf(author: Account, s: Status, note: ApObject): ApObject {
  return {
    id: `${s.uri}/activity`,
    type: "Create",
    actor: author.uri,
    published: apTime(s.createdAt),
    to: note.to,
    cc: note.cc,
    object: note,
  };
}

/**
 * An Announce. `embedded`: the full Note of a followers-only post boosted by its own author,
 * which the booster's followers elsewhere could not fetch (AP §5.7); otherwise the object is
 * the original's id.
 */
function announceOf(booster: Account, boost: Status, original: Status, originalAuthor: Account, embedded?: ApObject): ApObject {
  const { to, cc } = addressingFor({ visibility: boost.visibility, author: booster, mentions: [], boostedAuthorUri: originalAuthor.uri });
  return { id: boost.uri, type: "Announce", actor: booster.uri, published: apTime(boost.createdAt), to, cc, object: embedded ?? original.uri };
}

const embedsOriginal = (boost: Status, original: Status) => original.visibility === "private" && original.accountId === boost.accountId;

/**
 * The activity of each status of a page (outbox items, `/activity` URLs): Create(Note) for a
 * post, Announce for a boost; without @context, in input order. Boosts whose original is
 * gone are skipped. A fixed number of queries for the whole page.
 */
export function toApStatusActivities(app: App, statuses: Status[]): ApObject[] {
  if (statuses.length === 0) return [];
  return readTx(app.db, () => {
    const originals = findStatusesByIds(app.db, statuses.filter((s) => s.reblogOfId).map((s) => s.reblogOfId!));
    const accounts = findAccountsByIds(app.db, [...statuses, ...originals.values()].map((s) => s.accountId));
    const noted = statuses.filter((s) => !s.reblogOfId);
    for (const s of statuses) {
      const o = s.reblogOfId ? originals.get(s.reblogOfId) : undefined;
      if (o && embedsOriginal(s, o)) noted.push(o);
    }
    const batch = loadNoteBatch(app, noted, accounts);
    const out: ApObject[] = [];
    for (const s of statuses) {
      const author = accounts.get(s.accountId);
      if (!author) continue;
      if (!s.reblogOfId) {
        out.push(createOf(author, s, renderNote(app, s, batch)));
        continue;
      }
      const original = originals.get(s.reblogOfId);
      const originalAuthor = original && accounts.get(original.accountId);
      if (!original || !originalAuthor) continue;
      const embedded = embedsOriginal(s, original) ? renderNote(app, original, batch) : undefined;
      out.push(announceOf(author, s, original, originalAuthor, embedded));
    }
    return out;
  });
}

/** Create(Note) of a local status: id `<note id>/activity`. */
export function toApCreate(app: App, status: Status): ApObject {
  return readTx(app.db, () => {
    const batch = loadNoteBatch(app, [status]);
    return activity(createOf(batch.authors.get(status.accountId)!, status, renderNote(app, status, batch)));
  });
}

/** Update(Note) after an edit: id `<note id>#updates/<unix edit time>`. */
export function toApUpdateNote(app: App, status: Status): ApObject {
  return readTx(app.db, () => {
    const batch = loadNoteBatch(app, [status]);
    const note = renderNote(app, status, batch);
    const at = status.editedAt ?? status.updatedAt;
    return activity({
      id: `${status.uri}#updates/${unix(at)}`,
      type: "Update",
      actor: batch.authors.get(status.accountId)!.uri,
      published: apTime(at),
      to: note.to,
      cc: note.cc,
      object: note,
    });
  });
}

/** Delete(Tombstone) of a local status: id `<note id>#delete`. */
export function toApDeleteNote(_app: App, status: Status, author: Account): ApObject {
  return activity({
    id: `${status.uri}#delete`,
    type: "Delete",
    actor: author.uri,
    to: [AS_PUBLIC],
    object: { id: status.uri, type: "Tombstone", atomUri: status.uri },
  });
}

/** Delete of a local actor whose data is being removed (Mastodon's DeleteActorSerializer). */
export function toApDeleteActor(_app: App, account: Account): ApObject {
  return activity({
    id: `${account.uri}#delete`,
    type: "Delete",
    actor: account.uri,
    to: [AS_PUBLIC],
    object: account.uri,
  });
}

/** Move of a local account to `target` (which lists it in alsoKnownAs), as Mastodon's MoveSerializer. */
export function toApMove(_app: App, account: Account, target: Account, at: number): ApObject {
  return activity({
    id: `${account.uri}#moves/${at}`,
    type: "Move",
    actor: account.uri,
    object: account.uri,
    target: target.uri,
  });
}

/** Announce of a boost (`boost.uri` is its id), object = the original's uri. */
export function toApAnnounce(app: App, boost: Status, original: Status, originalAuthor: Account): ApObject {
  return readTx(app.db, () => {
    const booster = requireAccount(app, boost.accountId);
    let embedded: ApObject | undefined;
    if (embedsOriginal(boost, original)) {
      embedded = renderNote(app, original, loadNoteBatch(app, [original], new Map([[booster.id, booster]])));
    }
    return activity(announceOf(booster, boost, original, originalAuthor, embedded));
  });
}

/** Undo(Announce): id `<actor>#announces/<boost id>/undo`; the Announce names the original by id. */
export function toApUndoAnnounce(app: App, boost: Status, original: Status, originalAuthor: Account): ApObject {
  const booster = requireAccount(app, boost.accountId);
  return activity({
    id: `${booster.uri}#announces/${boost.id}/undo`,
    type: "Undo",
    actor: booster.uri,
    to: [AS_PUBLIC],
    object: announceOf(booster, boost, original, originalAuthor),
  });
}

function likeOf(actor: Account, favouriteId: string, status: Status): ApObject {
  return { id: `${actor.uri}#likes/${favouriteId}`, type: "Like", actor: actor.uri, object: status.uri };
}

/** Like: id `<actor>#likes/<favourite id>`. */
export function toApLike(_app: App, actor: Account, favouriteId: string, status: Status): ApObject {
  return activity(likeOf(actor, favouriteId, status));
}

/** Undo(Like): id `<actor>#likes/<favourite id>/undo`. */
export function toApUndoLike(_app: App, actor: Account, favouriteId: string, status: Status): ApObject {
  return activity({ id: `${actor.uri}#likes/${favouriteId}/undo`, type: "Undo", actor: actor.uri, object: likeOf(actor, favouriteId, status) });
}

function followOf(record: FollowRecord, source: Account, target: Account): ApObject {
  return { id: record.uri, type: "Follow", actor: source.uri, object: target.uri };
}

/** Follow: id = the record's stored uri. */
export function toApFollow(_app: App, record: FollowRecord, source: Account, target: Account): ApObject {
  return activity(followOf(record, source, target));
}

/** Undo(Follow): id `<actor>#follows/<record id>/undo`. */
export function toApUndoFollow(_app: App, record: FollowRecord, source: Account, target: Account): ApObject {
  return activity({ id: `${source.uri}#follows/${record.id}/undo`, type: "Undo", actor: source.uri, object: followOf(record, source, target) });
}

/** Accept(Follow) from the local target, embedding the Follow with its original id. */
export function toApAcceptFollow(_app: App, record: FollowRecord, source: Account, target: Account): ApObject {
  return activity({ id: `${target.uri}#accepts/follows/${record.id}`, type: "Accept", actor: target.uri, object: followOf(record, source, target) });
}

/** Reject(Follow) from the local target. */
export function toApRejectFollow(_app: App, record: FollowRecord, source: Account, target: Account): ApObject {
  return activity({ id: `${target.uri}#rejects/follows/${record.id}`, type: "Reject", actor: target.uri, object: followOf(record, source, target) });
}

function blockOf(block: Block, source: Account, target: Account): ApObject {
  return { id: block.uri, type: "Block", actor: source.uri, object: target.uri };
}

/** Block: id = the block's stored uri. */
export function toApBlock(_app: App, block: Block, source: Account, target: Account): ApObject {
  return activity(blockOf(block, source, target));
}

/** Undo(Block): id `<actor>#blocks/<block id>/undo`. */
export function toApUndoBlock(_app: App, block: Block, source: Account, target: Account): ApObject {
  return activity({ id: `${source.uri}#blocks/${block.id}/undo`, type: "Undo", actor: source.uri, object: blockOf(block, source, target) });
}

/** Update(Person) after a profile change: id `<actor>#updates/<unix>`, to Public. */
export function toApUpdateActor(app: App, account: Account): ApObject {
  return readTx(app.db, () =>
    activity({
      id: `${account.uri}#updates/${unix(account.updatedAt)}`,
      type: "Update",
      actor: account.uri,
      to: [AS_PUBLIC],
      object: renderActor(app, account),
    }),
  );
}

/** Add / Remove of a pinned status to/from the featured collection (no id). */
export function toApFeaturedChange(_app: App, kind: "Add" | "Remove", account: Account, status: Status): ApObject {
  return activity({ type: kind, actor: account.uri, object: status.uri, target: account.featuredUrl ?? `${account.uri}/collections/featured` });
}

/** Flag from the instance actor: object = [target actor, ...status uris]. */
export function toApFlag(app: App, report: { uri: string; comment: string; targetUri: string; statusUris: string[] }): ApObject {
  return activity({
    id: report.uri,
    type: "Flag",
    actor: instanceActorUri(app),
    content: report.comment,
    object: [report.targetUri, ...report.statusUris],
  });
}
