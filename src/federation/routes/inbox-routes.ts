// Inboxes (AP §7): POST /inbox (shared), /users/:username/inbox (personal), /actor/inbox
// (instance actor). Checks what needs no database beyond cached lookups, verifies the
// signature inline, and hands the activity to `inbox.process` (answered 202 once committed).
import { createHash } from "node:crypto";
import { getRouterParam, type H3Event } from "h3";
import type { App } from "../../app.ts";
import { findRowCache, installRowCache, type RowCacheSpec } from "../../storage/row-cache.ts";
import { ApiError, notFound } from "../../errors.ts";
import { findUsersByAccountIds } from "../../storage/account-profile.ts";
import { type Account, findAccountByHandle, findAccountByUri } from "../../storage/accounts.ts";
import type { Router } from "../../http/router.ts";
import { acceptActivity, trackIntake } from "../inbox/intake.ts";
import { ALLOWED_FROM_SUSPENDED } from "../inbox/dispatch.ts";
import { hasAsContext, hostOf, idOf, isObject, str, typesOf } from "../parse/common.ts";
import type { ApObject } from "../types.ts";
import { installVerifyCaches, MAX_SIGNED_BODY, readBodyLimited, syncVerifyCaches, verifyRequest } from "../verify-request.ts";

// Local inbox owners by lower-cased username; null: no such (approved) local user.
const INBOX_OWNERS: RowCacheSpec = {
  name: "federation:inbox-owners",
  max: 1024,
  watches: [
    ["accounts", null],
    ["users", null],
  ],
};

const accepted = () => new Response(null, { status: 202 });

/** The local account behind a personal inbox; 404 when unknown or not (yet) approved. */
function inboxOwner(app: App, username: string | undefined): Account {
  if (!username) throw notFound();
  const key = username.toLowerCase();
  const cache = findRowCache<{ account: Account | null }>(app, INBOX_OWNERS);
  syncVerifyCaches(app);
  let hit = cache?.get(key);
  if (!hit) {
    const account = findAccountByHandle(app.db, username, null) ?? null;
    const user = account ? findUsersByAccountIds(app.db, [account.id]).get(account.id) : undefined;
    hit = { account: account && user && user.approved && user.confirmedAt !== null ? account : null };
    cache?.set(key, hit);
  }
  if (!hit.account) throw notFound();
  return hit.account;
}

function parseActivity(body: Buffer): ApObject {
  let doc: unknown;
  try {
    doc = JSON.parse(body.toString("utf8"));
  } catch {
    throw new ApiError(400, "Malformed JSON body");
  }
  if (!isObject(doc)) throw new ApiError(400, "Malformed JSON body: expected an object");
  return doc;
}

/**
 * A Delete or Update of an actor by itself whose actor we never knew: there is no key to check
 * it with, and fetching a deleted actor is pointless (AP §5.2, §5.3).
 */
function isUnknownSelfChange(app: App, activity: ApObject, type: string | undefined): boolean {
  if (type !== "Delete" && type !== "Update") return false;
  const actor = idOf(activity.actor);
  return actor !== undefined && idOf(activity.object) === actor && !findAccountByUri(app.db, actor);
}

/**
 * What a repeat delivery is recognised by: the activity id, and for an Update its body too.
 * GoToSocial names every Update of a status `<status>/activity#Update`, so a later edit or a
 * poll's new tallies would otherwise pass for a repeat of the first Update.
 */
function dedupeId(type: string | undefined, id: string | undefined, body: Buffer): string | null {
  if (id === undefined) return null;
  if (type !== "Update") return id;
  return `${id} ${createHash("sha256").update(body).digest("base64url").slice(0, 22)}`;
}

async function receive(app: App, event: H3Event, recipient: Account | null): Promise<Response> {
  const body = await readBodyLimited(event, MAX_SIGNED_BODY);
  const activity = parseActivity(body);
  const type = typesOf(activity)[0];
  if (isUnknownSelfChange(app, activity, type)) return accepted();

  const { signer } = await verifyRequest(app, event, body);
  const drop = (why: string) => {
    app.log.info("inbox: activity dropped", { why, id: str(activity.id), type, signer: signer.uri });
    return accepted();
  };
  const actor = idOf(activity.actor);
  if (actor !== signer.uri) {
    // A key of one server speaking for an actor of another: refused like a bad signature.
    if (actor !== undefined && hostOf(actor) !== hostOf(signer.uri)) throw new ApiError(401, "The activity's actor is not on the signing key's server");
    // Relayed or forwarded activities would need an LD signature or integrity proof by the
    // claimed actor; roost does not verify those yet (AP §7 step 4, §13).
    return drop("actor is not the signer (no LD-signature support)");
  }
  if (signer.domain === null) return drop("local actor");
  if (signer.suspendedAt !== null && !ALLOWED_FROM_SUSPENDED.has(type ?? "")) return drop("suspended actor");
  if (!hasAsContext(activity)) return drop("no ActivityStreams context");

  // An id on another server is not the signer's to use: remembered, it would shadow the real
  // activity (taken for a repeat); stored, it would name follows and favourites it cannot own.
  const id = str(activity.id);
  if (id !== undefined && hostOf(id) !== hostOf(signer.uri)) return drop("activity id on another server");
  const fresh = await acceptActivity(app, {
    activityId: dedupeId(type, id, body),
    payload: { activity, signerId: signer.id, ...(recipient ? { recipientId: recipient.id } : {}) },
    domain: signer.domain,
  });
  if (!fresh) app.log.debug("inbox: repeated activity", { id });
  return accepted();
}

export function registerInboxRoutes(app: App, r: Router): void {
  installVerifyCaches(app);
  installRowCache(app, INBOX_OWNERS);

  r.post("/inbox", (event) => trackIntake(app, () => receive(app, event, null)));
  r.post("/actor/inbox", (event) => trackIntake(app, () => receive(app, event, null)));
  r.post("/users/:username/inbox", (event) => trackIntake(app, () => receive(app, event, inboxOwner(app, getRouterParam(event, "username")))));
}
