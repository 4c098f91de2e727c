import type { App } from "../app.ts";
import { tx } from "../db/db.ts";
import { notFound } from "../errors.ts";
import { exceedsCodePoints } from "../lib/code-points.ts";
import { parseId } from "../lib/ids.ts";
import { parseCidr } from "../lib/ip-cidr.ts";
import { Validation } from "../lib/validation.ts";
import { forgetIpBlocks } from "../services/ip-blocks.ts";
import {
  deleteIpBlock,
  findIpBlockById,
  findIpBlockByIp,
  insertIpBlock,
  IP_SEVERITIES,
  type IpBlock,
  type IpSeverity,
  listIpBlocksPage,
  updateIpBlock,
} from "../storage/ip-blocks.ts";
import type { Page } from "../storage/timelines.ts";
import { type Actor, requireCan } from "./actor.ts";
import { audit, changesOf } from "./audit.ts";

// IP blocks (Mastodon's Api::V1::Admin::IpBlocksController, manage_blocks), enforced by
// services/ip-blocks.ts: before routing (no_access) and at sign-up. Every change drops the
// server's in-memory BlockList so the next request sees it.

/** roost's bound on a comment (Mastodon sets none). */
export const IP_COMMENT_MAX = 5000;

export interface IpBlockInput {
  ip?: string;
  severity?: string;
  comment?: string;
  /** Seconds from now; null clears the expiry. */
  expiresIn?: number | null;
}

const target = (b: IpBlock) => ({ type: "IpBlock", id: b.id, name: b.ip });
const fieldsOf = (b: IpBlock) => ({
  ip: b.ip,
  severity: b.severity,
  comment: b.comment,
  expires_at: b.expiresAt === null ? null : new Date(b.expiresAt).toISOString(),
});

export function listIpBlocks(app: App, actor: Actor, page: Page): IpBlock[] {
  requireCan(actor, "manage_blocks");
  return listIpBlocksPage(app.db, page);
}

/** By id, or for the CLI by its address or CIDR too. */
export function requireIpBlock(app: App, ref: string | undefined, byIp = false): IpBlock {
  const id = parseId(ref);
  let block = id ? findIpBlockById(app.db, id) : undefined;
  const cidr = !block && byIp && ref ? parseCidr(ref) : null;
  if (cidr) block = findIpBlockByIp(app.db, cidr.cidr);
  if (!block) throw notFound();
  return block;
}

/** The fields of `input` checked and applied to `base`; the errors, if any, in `v`. */
function apply(app: App, base: IpBlock, input: IpBlockInput, v: Validation): IpBlock {
  const next = { ...base };
  if (input.ip !== undefined) {
    const cidr = input.ip.trim() === "" ? null : parseCidr(input.ip);
    if (input.ip.trim() === "") v.add("ip", "ERR_BLANK", "can't be blank");
    else if (!cidr) v.add("ip", "ERR_INVALID", "is invalid");
    else Object.assign(next, { ip: cidr.cidr, firstKey: cidr.first, lastKey: cidr.last });
  }
  if (input.severity !== undefined) {
    if (input.severity === "") v.add("severity", "ERR_BLANK", "can't be blank");
    else if (!IP_SEVERITIES.includes(input.severity as IpSeverity)) v.add("severity", "ERR_INCLUSION", "is not included in the list");
    else next.severity = input.severity as IpSeverity;
  }
  if (input.comment !== undefined) {
    if (exceedsCodePoints(input.comment, IP_COMMENT_MAX)) v.add("comment", "ERR_TOO_LONG", `is too long (maximum is ${IP_COMMENT_MAX} characters)`);
    else next.comment = input.comment.trim();
  }
  if (input.expiresIn !== undefined) {
    if (input.expiresIn !== null && !(input.expiresIn > 0)) v.add("expires_in", "ERR_INVALID", "is invalid");
    else next.expiresAt = input.expiresIn === null ? null : app.now() + Math.min(input.expiresIn, 100 * 365 * 86_400) * 1000;
  }
  return next;
}

function requireFreeRange(app: App, block: IpBlock): void {
  const other = findIpBlockByIp(app.db, block.ip);
  if (other && other.id !== block.id) new Validation().add("ip", "ERR_TAKEN", "has already been taken").throwIfAny();
}

/** POST: `ip` and `severity` required; 422 for an invalid or already blocked range. */
export function blockIp(app: App, actor: Actor, input: IpBlockInput): IpBlock {
  requireCan(actor, "manage_blocks");
  const now = app.now();
  const v = new Validation();
  const empty: IpBlock = { id: app.ids.next(), ip: "", firstKey: "", lastKey: "", severity: "sign_up_block", comment: "", expiresAt: null, createdAt: now, updatedAt: now };
  const block = apply(app, empty, { ...input, ip: input.ip ?? "", severity: input.severity ?? "" }, v);
  v.throwIfAny();
  const created = tx(app.db, () => {
    requireFreeRange(app, block);
    insertIpBlock(app.db, block);
    audit(app, actor, "create", target(block), changesOf({}, fieldsOf(block)));
    return block;
  });
  forgetIpBlocks(app);
  return created;
}

/**
 * PUT: the fields given. Mastodon saves nothing when a value is invalid and still answers
 * with the record (endpoints-admin.md §4), which `lenient` keeps; the CLI wants the 422.
 */
export function changeIpBlock(app: App, actor: Actor, block: IpBlock, input: IpBlockInput, lenient = false): IpBlock {
  requireCan(actor, "manage_blocks");
  const v = new Validation();
  const next = { ...apply(app, block, input, v), updatedAt: app.now() };
  if (!v.ok) {
    if (lenient) return block;
    v.throwIfAny();
  }
  const changes = changesOf(fieldsOf(block), fieldsOf(next));
  if (Object.keys(changes).length === 0) return block;
  const taken = findIpBlockByIp(app.db, next.ip);
  if (lenient && taken && taken.id !== block.id) return block;
  const saved = tx(app.db, () => {
    requireFreeRange(app, next);
    updateIpBlock(app.db, next);
    audit(app, actor, "update", target(next), changes);
    return next;
  });
  forgetIpBlocks(app);
  return saved;
}

export function unblockIp(app: App, actor: Actor, block: IpBlock): void {
  requireCan(actor, "manage_blocks");
  tx(app.db, () => {
    deleteIpBlock(app.db, block.id);
    audit(app, actor, "destroy", target(block), changesOf(fieldsOf(block), {}));
  });
  forgetIpBlocks(app);
}
