import type { App } from "../app.ts";
import { tx } from "../db/db.ts";
import { notFound } from "../errors.ts";
import { exceedsCodePoints } from "../lib/code-points.ts";
import { parseId } from "../lib/ids.ts";
import { Validation } from "../lib/validation.ts";
import { createDomainBlock, type CreateDomainBlockInput, normalizeDomain, SEVERITIES } from "../services/domain-blocks.ts";
import {
  deleteDomainBlock,
  type DomainBlock,
  type DomainBlockPatch,
  findDomainBlockByDomain,
  findDomainBlockById,
  liftDomainStamps,
  listDomainBlocksPage,
  silenceDomainAccounts,
  updateDomainBlock,
} from "../storage/domain-blocks.ts";
import type { Page } from "../storage/timelines.ts";
import { type Actor, requireCan } from "./actor.ts";
import { audit, changesOf } from "./audit.ts";
import { enqueueDomainSuspension } from "./domain-accounts.ts";
import { enqueueDomainMediaDrop } from "./domain-media.ts";

// Domain blocks (Mastodon's Api::V1::Admin::DomainBlocksController, BlockDomainService,
// UnblockDomainService), for the admin API and `roost domains`. The row is what federation
// enforces (federation/domain-policy.ts reads it for every request, fetch and delivery); here
// the accounts already known are limited too: silenced at once, or suspended and purged by
// the domain.suspend_accounts job, all stamped with the block's time so that relaxing or
// lifting the block undoes exactly what it did.

/** roost's bound on a comment (Mastodon sets none). */
export const DOMAIN_COMMENT_MAX = 5000;

export type DomainBlockInput = CreateDomainBlockInput;
export type DomainBlockUpdate = DomainBlockPatch;

/** The fields the audit log records. */
const fieldsOf = (b: DomainBlock) => ({
  severity: b.severity,
  reject_media: b.rejectMedia,
  reject_reports: b.rejectReports,
  private_comment: b.privateComment,
  public_comment: b.publicComment,
  obfuscate: b.obfuscate,
});

const target = (b: DomainBlock) => ({ type: "DomainBlock", id: b.id, name: b.domain });

function checkFields(input: { severity?: string; publicComment?: string | null; privateComment?: string | null }): void {
  const v = new Validation();
  if (input.severity !== undefined && !SEVERITIES.includes(input.severity as DomainBlock["severity"])) {
    v.add("severity", "ERR_INCLUSION", "is not included in the list");
  }
  for (const [attr, text] of [["public_comment", input.publicComment], ["private_comment", input.privateComment]] as const) {
    if (text && exceedsCodePoints(text, DOMAIN_COMMENT_MAX)) v.add(attr, "ERR_TOO_LONG", `is too long (maximum is ${DOMAIN_COMMENT_MAX} characters)`);
  }
  v.throwIfAny();
}

export function listDomainBlocks(app: App, actor: Actor, page: Page): DomainBlock[] {
  requireCan(actor, "manage_federation");
  return listDomainBlocksPage(app.db, page);
}

/** By id (the API) or, for the CLI, by domain name. */
export function requireDomainBlock(app: App, ref: string | undefined, byDomain = false): DomainBlock {
  const id = parseId(ref);
  const domain = byDomain && ref ? normalizeDomain(ref) : undefined;
  const block = (id && findDomainBlockById(app.db, id)) || (domain && findDomainBlockByDomain(app.db, domain)) || undefined;
  if (!block) throw notFound();
  return block;
}

/** What the block does to the accounts already known (BlockDomainService#process_domain_block!). */
function applyToAccounts(app: App, actor: Actor | null, b: DomainBlock): void {
  if (b.severity === "silence") silenceDomainAccounts(app.db, b.domain, b.createdAt);
  else if (b.severity === "suspend") enqueueDomainSuspension(app, b.domain, b.createdAt, actor?.account.id ?? null);
}

const rejectsMedia = (b: DomainBlock) => b.rejectMedia || b.severity === "suspend";

export function blockDomain(app: App, actor: Actor, input: DomainBlockInput): DomainBlock {
  requireCan(actor, "manage_federation");
  checkFields(input);
  return tx(app.db, () => {
    const block = createDomainBlock(app, input);
    applyToAccounts(app, actor, block);
    if (rejectsMedia(block)) enqueueDomainMediaDrop(app, block.domain);
    audit(app, actor, "create", target(block), changesOf({}, fieldsOf(block)));
    return block;
  });
}

/** The CLI's `domains block`: a new block, or the change of the one the domain already has. */
export function blockOrUpdateDomain(app: App, actor: Actor, input: DomainBlockInput): DomainBlock {
  const name = normalizeDomain(input.domain ?? "");
  const existing = name ? findDomainBlockByDomain(app.db, name) : undefined;
  if (!existing) return blockDomain(app, actor, input);
  const { domain: _domain, ...fields } = input;
  return updateBlock(app, actor, existing, fields);
}

/** PUT: any field but the domain. A changed severity undoes what the old one did first. */
export function updateBlock(app: App, actor: Actor, block: DomainBlock, patch: DomainBlockUpdate): DomainBlock {
  requireCan(actor, "manage_federation");
  checkFields(patch);
  const clean: DomainBlockPatch = { ...patch };
  if (clean.publicComment !== undefined) clean.publicComment = clean.publicComment?.trim() || null;
  if (clean.privateComment !== undefined) clean.privateComment = clean.privateComment?.trim() || null;
  return tx(app.db, () => {
    updateDomainBlock(app.db, block.id, clean, app.now());
    const after = findDomainBlockById(app.db, block.id)!;
    if (after.severity !== block.severity) {
      liftDomainStamps(app.db, after.domain, after.createdAt, { silence: after.severity !== "silence", suspend: after.severity !== "suspend" });
      applyToAccounts(app, actor, after);
    }
    if (rejectsMedia(after) && !rejectsMedia(block)) enqueueDomainMediaDrop(app, after.domain);
    audit(app, actor, "update", target(after), changesOf(fieldsOf(block), fieldsOf(after)));
    return after;
  });
}

/** DELETE: the block goes, and the silences and suspensions it made are lifted. */
export function unblockDomain(app: App, actor: Actor, block: DomainBlock): void {
  requireCan(actor, "manage_federation");
  tx(app.db, () => {
    liftDomainStamps(app.db, block.domain, block.createdAt, { silence: block.severity !== "noop", suspend: block.severity === "suspend" });
    deleteDomainBlock(app.db, block.id);
    audit(app, actor, "destroy", target(block), changesOf(fieldsOf(block), {}));
  });
}

export type { DomainBlock };
