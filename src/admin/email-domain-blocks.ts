import type { App } from "../app.ts";
import { tx } from "../db/db.ts";
import { notFound } from "../errors.ts";
import { parseId } from "../lib/ids.ts";
import { Validation } from "../lib/validation.ts";
import { normalizeDomain } from "../services/domain-blocks.ts";
import {
  deleteEmailDomainBlock,
  type EmailDomainBlock,
  findEmailDomainBlockByDomain,
  findEmailDomainBlockById,
  insertEmailDomainBlock,
  listEmailDomainBlocksPage,
} from "../storage/email-domain-blocks.ts";
import type { Page } from "../storage/timelines.ts";
import { type Actor, requireCan } from "./actor.ts";
import { audit } from "./audit.ts";

// E-mail domain blocks (Mastodon's Api::V1::Admin::EmailDomainBlocksController, manage_blocks),
// enforced at sign-up by services/email-domain-blocks.ts.

export function listEmailDomainBlocks(app: App, actor: Actor, page: Page): EmailDomainBlock[] {
  requireCan(actor, "manage_blocks");
  return listEmailDomainBlocksPage(app.db, page);
}

/** By id, or for the CLI by domain too. */
export function requireEmailDomainBlock(app: App, ref: string | undefined, byDomain = false): EmailDomainBlock {
  const id = parseId(ref);
  const domain = byDomain && ref ? normalizeDomain(ref) : undefined;
  const block = (id && findEmailDomainBlockById(app.db, id)) || (domain && findEmailDomainBlockByDomain(app.db, domain)) || undefined;
  if (!block) throw notFound();
  return block;
}

/** 422 for a blank, invalid or already blocked domain. */
export function blockEmailDomain(app: App, actor: Actor, input: { domain?: string; allowWithApproval?: boolean }): EmailDomainBlock {
  requireCan(actor, "manage_blocks");
  const raw = input.domain ?? "";
  const domain = raw.trim() === "" ? undefined : normalizeDomain(raw);
  const v = new Validation();
  if (raw.trim() === "") v.add("domain", "ERR_BLANK", "can't be blank");
  else if (!domain) v.add("domain", "ERR_INVALID", "is invalid");
  v.throwIfAny();
  return tx(app.db, () => {
    if (findEmailDomainBlockByDomain(app.db, domain!)) new Validation().add("domain", "ERR_TAKEN", "has already been taken").throwIfAny();
    const now = app.now();
    const block: EmailDomainBlock = { id: app.ids.next(), domain: domain!, allowWithApproval: input.allowWithApproval ?? false, createdAt: now, updatedAt: now };
    insertEmailDomainBlock(app.db, block);
    audit(app, actor, "create", { type: "EmailDomainBlock", id: block.id, name: block.domain }, { domain: [null, block.domain], allow_with_approval: [null, block.allowWithApproval] });
    return block;
  });
}

export function unblockEmailDomain(app: App, actor: Actor, block: EmailDomainBlock): void {
  requireCan(actor, "manage_blocks");
  tx(app.db, () => {
    deleteEmailDomainBlock(app.db, block.id);
    audit(app, actor, "destroy", { type: "EmailDomainBlock", id: block.id, name: block.domain }, { domain: [block.domain, null], allow_with_approval: [block.allowWithApproval, null] });
  });
}
