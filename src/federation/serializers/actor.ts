// Local accounts → actor documents (AP §3.1, §3.2), the instance actor (§3.3).
import type { App } from "../../app.ts";
import { readTx } from "../../db/db.ts";
import { uniqueHashtags } from "../../lib/tags.ts";
import { localActorUrls, mediaUrl, tagUrl } from "../../lib/urls.ts";
import { scanShortcodes } from "../../lib/shortcodes.ts";
import { type Account, findAccountById } from "../../storage/accounts.ts";
import { findProfileSettings } from "../../storage/account-profile.ts";
import { instanceActorKeys, instanceActorKeyId, instanceActorUri } from "../instance-actor.ts";
import type { ApObject } from "../types.ts";
import { ACTOR_CONTEXT, apTime, withContext } from "./context.ts";
import { emojiTags, loadEmojis } from "./emoji.ts";

const DAY = 86_400_000;

function shortcodesOf(a: Account): string[] {
  const out = scanShortcodes(a.note, scanShortcodes(a.displayName, []));
  for (const f of a.fields) scanShortcodes(f.value, scanShortcodes(f.name, out));
  return out;
}

function image(url: string, contentType: string | null): ApObject {
  return { type: "Image", ...(contentType ? { mediaType: contentType } : {}), url };
}

/** Emojis used in the name, bio and fields, then the bio's hashtags (Mastodon's emojis + tags). */
function tagsOf(app: App, a: Account): ApObject[] {
  const codes = shortcodesOf(a);
  const emojis = codes.length ? emojiTags(app, null, codes, loadEmojis(app, [{ domain: null, codes }])) : [];
  const hashtags = uniqueHashtags(a.noteSource).map((t) => ({ type: "Hashtag", href: tagUrl(app.baseUrl, t.name), name: `#${t.display}` }));
  return [...emojis, ...hashtags];
}

/** Bots (the bot flag) are Services and groups stay Groups; everyone else is a Person. */
function actorType(a: Account): string {
  return a.actorType === "Service" || a.actorType === "Group" ? a.actorType : "Person";
}

/**
 * The actor document without @context (Update(Person) embeds it). A suspended account keeps
 * its id, keys and collections (peers still verify its Deletes) and loses everything else.
 */
export function renderActor(app: App, a: Account): ApObject {
  const urls = localActorUrls(app.baseUrl, a.username);
  const suspended = a.suspendedAt !== null;
  const doc: ApObject = {
    id: a.uri,
    type: actorType(a),
    webfinger: `${a.username}@${app.config.domain}`,
    following: a.followingUrl ?? urls.followingUrl,
    followers: a.followersUrl ?? urls.followersUrl,
    inbox: a.inboxUrl ?? urls.inboxUrl,
    outbox: a.outboxUrl ?? urls.outboxUrl,
    featured: a.featuredUrl ?? urls.featuredUrl,
    featuredTags: a.featuredTagsUrl ?? urls.featuredTagsUrl,
    preferredUsername: a.username,
    name: suspended ? a.username : a.displayName || a.username,
    summary: suspended ? "" : a.note,
    url: a.url ?? urls.url,
    manuallyApprovesFollowers: suspended ? false : a.locked,
    discoverable: suspended ? false : a.discoverable === true,
    indexable: suspended ? false : a.indexable,
    // Creation day only: the exact time would tell when the user signed up.
    published: apTime(a.createdAt - (((a.createdAt % DAY) + DAY) % DAY)),
    memorial: suspended ? false : a.memorial,
    publicKey: {
      id: a.publicKeyId ?? urls.publicKeyId,
      owner: a.uri,
      publicKeyPem: a.publicKeyPem ?? "",
    },
  };
  if (suspended) doc.suspended = true;
  doc.tag = suspended ? [] : tagsOf(app, a);
  doc.attachment = suspended ? [] : a.fields.map((f) => ({ type: "PropertyValue", name: f.name, value: f.value }));
  doc.endpoints = { sharedInbox: a.sharedInboxUrl ?? urls.sharedInboxUrl };
  if (!suspended && a.avatarFile) doc.icon = image(mediaUrl(app.baseUrl, a.avatarFile), a.avatarContentType);
  if (!suspended && a.headerFile) doc.image = image(mediaUrl(app.baseUrl, a.headerFile), a.headerContentType);
  if (!suspended && a.movedToAccountId) {
    const target = findAccountById(app.db, a.movedToAccountId);
    if (target) doc.movedTo = target.uri;
  }
  if (!suspended && a.alsoKnownAs.length) doc.alsoKnownAs = a.alsoKnownAs;
  // Sites allowed to credit the account (fediverse:creator), only when there are some (Mastodon 4.4).
  const attribution = suspended ? [] : findProfileSettings(app.db, a.id).attributionDomains;
  if (attribution.length) doc.attributionDomains = attribution;
  return doc;
}

/** Person (Service for bots) with keys, endpoints, profile fields, emoji tags, moves. */
export function toApActor(app: App, account: Account): ApObject {
  return withContext(ACTOR_CONTEXT, readTx(app.db, () => renderActor(app, account)));
}

/** The instance actor's document without @context. */
export function renderInstanceActor(app: App): ApObject {
  const uri = instanceActorUri(app);
  return {
    id: uri,
    type: "Application",
    preferredUsername: app.config.domain,
    inbox: `${uri}/inbox`,
    outbox: `${uri}/outbox`,
    url: `${app.baseUrl}/about/more?instance_actor=true`,
    manuallyApprovesFollowers: true,
    publicKey: { id: instanceActorKeyId(app), owner: uri, publicKeyPem: instanceActorKeys(app).publicKeyPem },
    endpoints: { sharedInbox: `${app.baseUrl}/inbox` },
  };
}

/** The instance actor's document (Application). */
export function toApInstanceActor(app: App): ApObject {
  return withContext(ACTOR_CONTEXT, renderInstanceActor(app));
}
