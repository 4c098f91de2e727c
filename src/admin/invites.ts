import { randomInt } from "node:crypto";
import type { App } from "../app.ts";
import { tx } from "../db/db.ts";
import { forbidden, notFound } from "../errors.ts";
import { exceedsCodePoints } from "../lib/code-points.ts";
import { Validation } from "../lib/validation.ts";
import { findInviteByCode, findInviteById, insertInvite, type Invite, type InviteWithInviter, listInvites, setInviteExpiry } from "../storage/invites.ts";
import { userMayInvite } from "../services/invites.ts";
import { type Actor, can, requireCan } from "./actor.ts";
import { audit, changesOf } from "./audit.ts";

// Invites (Mastodon's Invite, InvitesController and InvitePolicy): a user whose role has
// invite_users creates them, when the admin's settings allow it (invites on, role at or above
// the minimum); the creator or someone with manage_invites expires them, which keeps the row.
// Every action is in the audit log. Using one is registration's (services/invites.ts).

/** Mastodon's Invite form: the offered lifetimes, in seconds (30 min, 1 h, 6 h, 12 h, 1 day, 1 week). */
export const INVITE_EXPIRATIONS = [1800, 3600, 21600, 43200, 86400, 604800] as const;
const MAX_USES_LIMIT = 100_000;
const COMMENT_MAX = 420;
// Mastodon's alphabet: letters and digits without the look-alikes 0 1 I l O.
const ALPHABET = "abcdefghijkmnopqrstuvwxyzABCDEFGHJKLMNPQRSTUVWXYZ23456789";

export interface InviteInput {
  /** null or absent: unlimited. */
  maxUses?: number | null;
  /** Seconds, one of INVITE_EXPIRATIONS; null or absent: never. */
  expiresIn?: number | null;
  autofollow?: boolean;
  comment?: string | null;
}

function newCode(app: App): string {
  for (;;) {
    let code = "";
    for (let i = 0; i < 8; i++) code += ALPHABET[randomInt(ALPHABET.length)];
    if (!findInviteByCode(app.db, code)) return code;
  }
}

const iso = (t: number | null) => (t === null ? null : new Date(t).toISOString());
const snapshot = (i: Invite) => ({ code: i.code, max_uses: i.maxUses, expires_at: iso(i.expiresAt), autofollow: i.autofollow, comment: i.comment });

export function createInvite(app: App, actor: Actor, input: InviteInput): Invite {
  requireCan(actor, "invite_users");
  if (!userMayInvite(app, actor.user)) throw forbidden();
  const v = new Validation();
  const maxUses = input.maxUses ?? null;
  if (maxUses !== null && (!Number.isInteger(maxUses) || maxUses < 1 || maxUses > MAX_USES_LIMIT))
    v.add("max_uses", "ERR_INVALID", `must be a whole number from 1 to ${MAX_USES_LIMIT}, or empty for no limit`);
  const expiresIn = input.expiresIn ?? null;
  if (expiresIn !== null && !(INVITE_EXPIRATIONS as readonly number[]).includes(expiresIn))
    v.add("expires_in", "ERR_INVALID", `must be one of ${INVITE_EXPIRATIONS.join(", ")} seconds, or empty for never`);
  const comment = input.comment?.trim() || null;
  if (comment && exceedsCodePoints(comment, COMMENT_MAX)) v.add("comment", "ERR_TOO_LONG", `is too long (maximum is ${COMMENT_MAX} characters)`);
  v.throwIfAny();
  const now = app.now();
  const invite: Invite = {
    id: app.ids.next(),
    userId: actor.user.id,
    code: newCode(app),
    expiresAt: expiresIn === null ? null : now + expiresIn * 1000,
    maxUses,
    uses: 0,
    autofollow: input.autofollow ?? false,
    comment,
    createdAt: now,
    updatedAt: now,
  };
  tx(app.db, () => {
    insertInvite(app.db, invite);
    audit(app, actor, "create", { type: "Invite", id: invite.id, name: invite.code }, changesOf({}, snapshot(invite)));
  });
  return invite;
}

/** An invite by id or code. */
export function requireInvite(app: App, ref: string): Invite {
  const r = ref.trim();
  const invite = findInviteById(app.db, r) ?? (r.length <= 64 ? findInviteByCode(app.db, r) : undefined);
  if (!invite) throw notFound(`Invite not found: ${ref.length > 64 ? ref.slice(0, 64) + "…" : ref}`);
  return invite;
}

/**
 * The actor's own invites (InvitesController#index: needs invite_users), or everyone's with
 * `all` (the admin listing: manage_invites). Newest first.
 */
export function listInvitesFor(app: App, actor: Actor, opts: { all?: boolean; state?: "available" | "expired"; limit?: number } = {}): InviteWithInviter[] {
  if (opts.all) requireCan(actor, "manage_invites");
  else requireCan(actor, "invite_users", "manage_invites");
  return listInvites(app.db, { userId: opts.all ? undefined : actor.user.id, state: opts.state, now: app.now(), limit: opts.limit ?? 1000 });
}

/**
 * Expires an invite at once and keeps the record (Invite#expire!, InvitePolicy#destroy?: its
 * creator or manage_invites). Expiring an already expired invite changes nothing.
 */
export function expireInvite(app: App, actor: Actor, invite: Invite): Invite {
  if (!(invite.userId === actor.user.id || can(actor, "manage_invites"))) throw forbidden();
  const now = app.now();
  if (invite.expiresAt !== null && invite.expiresAt <= now) return invite;
  tx(app.db, () => {
    setInviteExpiry(app.db, invite.id, now, now);
    audit(app, actor, "expire", { type: "Invite", id: invite.id, name: invite.code }, { expires_at: [iso(invite.expiresAt), iso(now)] });
  });
  return { ...invite, expiresAt: now, updatedAt: now };
}

/** What an invite looks like in listings: its link, state and inviter. */
export function inviteRow(app: App, i: InviteWithInviter) {
  const now = app.now();
  const state = i.expiresAt !== null && i.expiresAt <= now ? "expired" : i.maxUses !== null && i.uses >= i.maxUses ? "used_up" : "available";
  return {
    id: i.id,
    code: i.code,
    url: `${app.baseUrl}/invite/${i.code}`,
    inviter: i.inviterUsername,
    uses: i.uses,
    max_uses: i.maxUses,
    expires_at: iso(i.expiresAt),
    autofollow: i.autofollow,
    comment: i.comment,
    state,
    created_at: new Date(i.createdAt).toISOString(),
  };
}
