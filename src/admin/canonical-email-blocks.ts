import type { App } from "../app.ts";
import { tx } from "../db/db.ts";
import { notFound } from "../errors.ts";
import { CANONICAL_HASH_RE, canonicalEmailHash } from "../lib/canonical-email.ts";
import { parseId } from "../lib/ids.ts";
import { Validation } from "../lib/validation.ts";
import {
  type CanonicalEmailBlock,
  deleteCanonicalEmailBlock,
  findCanonicalEmailBlockByHash,
  findCanonicalEmailBlockById,
  insertCanonicalEmailBlock,
  listCanonicalEmailBlocksPage,
} from "../storage/canonical-email-blocks.ts";
import type { Page } from "../storage/timelines.ts";
import { type Actor, requireCan } from "./actor.ts";
import { audit } from "./audit.ts";

// Canonical e-mail blocks (Mastodon's Api::V1::Admin::CanonicalEmailBlocksController,
// manage_blocks), enforced at sign-up by services/canonical-email-blocks.ts.

const target = (b: CanonicalEmailBlock) => ({ type: "CanonicalEmailBlock", id: b.id, name: b.hash });

export function listCanonicalEmailBlocks(app: App, actor: Actor, page: Page): CanonicalEmailBlock[] {
  requireCan(actor, "manage_blocks");
  return listCanonicalEmailBlocksPage(app.db, page);
}

/** By id, or for the CLI by an address or a hash too. */
export function requireCanonicalEmailBlock(app: App, ref: string | undefined, byValue = false): CanonicalEmailBlock {
  const id = parseId(ref);
  let block = id ? findCanonicalEmailBlockById(app.db, id) : undefined;
  if (!block && byValue && ref) {
    const v = ref.trim().toLowerCase();
    block = findCanonicalEmailBlockByHash(app.db, CANONICAL_HASH_RE.test(v) ? v : canonicalEmailHash(ref.trim()));
  }
  if (!block) throw notFound();
  return block;
}

/** POST /test: the blocks an address meets (none for a blank one). */
export function testCanonicalEmail(app: App, actor: Actor, email: string): CanonicalEmailBlock[] {
  requireCan(actor, "manage_blocks");
  const block = findCanonicalEmailBlockByHash(app.db, canonicalEmailHash(email));
  return block ? [block] : [];
}

/**
 * An address (hashed after canonicalisation) or a hash as given; the address wins when both
 * come. 422 when neither, for a hash that is not 64 hex digits, or one already blocked.
 */
export function blockCanonicalEmail(app: App, actor: Actor, input: { email?: string; hash?: string }): CanonicalEmailBlock {
  requireCan(actor, "manage_blocks");
  const email = input.email?.trim();
  const given = input.hash?.trim().toLowerCase();
  const hash = email ? canonicalEmailHash(email) : given || undefined;
  const v = new Validation();
  if (!hash) v.add("canonical_email_hash", "ERR_BLANK", "can't be blank");
  else if (!CANONICAL_HASH_RE.test(hash)) v.add("canonical_email_hash", "ERR_INVALID", "is invalid");
  v.throwIfAny();
  return tx(app.db, () => {
    if (findCanonicalEmailBlockByHash(app.db, hash!)) new Validation().add("canonical_email_hash", "ERR_TAKEN", "has already been taken").throwIfAny();
    const now = app.now();
    const block: CanonicalEmailBlock = { id: app.ids.next(), hash: hash!, referenceAccountId: null, createdAt: now, updatedAt: now };
    insertCanonicalEmailBlock(app.db, block);
    audit(app, actor, "create", target(block), { canonical_email_hash: [null, block.hash] });
    return block;
  });
}

export function unblockCanonicalEmail(app: App, actor: Actor, block: CanonicalEmailBlock): void {
  requireCan(actor, "manage_blocks");
  tx(app.db, () => {
    deleteCanonicalEmailBlock(app.db, block.id);
    audit(app, actor, "destroy", target(block), { canonical_email_hash: [block.hash, null] });
  });
}
