import type { App } from "../app.ts";
import { inTx } from "../db/db.ts";
import { ApiError } from "../errors.ts";
import { Validation } from "../lib/validation.ts";
import {
  type DomainBlock,
  type DomainBlockSeverity,
  findDomainBlockById,
  findDomainBlockFor,
  insertDomainBlock,
  listUserFacingDomainBlocks,
} from "../storage/domain-blocks.ts";

export interface CreateDomainBlockInput {
  domain: string;
  severity?: DomainBlockSeverity;
  rejectMedia?: boolean;
  rejectReports?: boolean;
  publicComment?: string | null;
  privateComment?: string | null;
  obfuscate?: boolean;
}

/**
 * 422 when the domain is already blocked, or a parent domain has an equal or stricter block. The admin API
 * renders `existing` as Mastodon's `existing_domain_block`.
 */
export class DomainBlockExistsError extends ApiError {
  constructor(readonly existing: DomainBlock) {
    super(422, `You have already imposed stricter limits on ${existing.domain}.`);
  }
}

export const SEVERITIES: readonly DomainBlockSeverity[] = ["noop", "silence", "suspend"];

/** Lower-cased ASCII (punycode) form of a domain, or undefined when it is not a host name. */
export function normalizeDomain(input: string): string | undefined {
  // Bounded before parsing: no host name is longer (an IDN's punycode included).
  if (input.length > 1024) return undefined;
  const raw = input.trim().replace(/\.$/, "");
  if (raw === "" || /[\s/:@?#]/.test(raw)) return undefined;
  let host: string;
  try {
    host = new URL(`http://${raw}`).hostname;
  } catch {
    return undefined;
  }
  if (host.length > 253 || !/^[a-z0-9_]([a-z0-9_-]{0,62})(\.[a-z0-9_]([a-z0-9_-]{0,62}))*$/.test(host)) return undefined;
  return host;
}

// Mastodon's DomainBlock#stricter_than?
function stricterThan(a: Omit<DomainBlock, "id" | "createdAt" | "updatedAt">, other: DomainBlock): boolean {
  if (a.severity === "suspend") return true;
  if (other.severity === "suspend" && (a.severity === "silence" || a.severity === "noop")) return false;
  if (other.severity === "silence" && a.severity === "noop") return false;
  return (a.rejectMedia || !other.rejectMedia) && (a.rejectReports || !other.rejectReports);
}

/**
 * Blocks a remote domain and its subdomains: the row only (validation and the conflict rule);
 * src/admin/domain-blocks.ts adds the audit entry and the accounts' limitations. Joins the
 * caller's transaction when there is one.
 */
export function createDomainBlock(app: App, input: CreateDomainBlockInput): DomainBlock {
  const v = new Validation();
  const raw = input.domain ?? "";
  const domain = raw.trim() === "" ? undefined : normalizeDomain(raw);
  if (raw.trim() === "") v.add("domain", "ERR_BLANK", "can't be blank");
  else if (!domain) v.add("domain", "ERR_INVALID", "is invalid");
  const severity = input.severity ?? "silence";
  if (!SEVERITIES.includes(severity)) v.add("severity", "ERR_INCLUSION", "is not included in the list");
  v.throwIfAny();
  const now = app.now();
  const block = {
    id: app.ids.next(),
    domain: domain!,
    severity,
    rejectMedia: input.rejectMedia ?? false,
    rejectReports: input.rejectReports ?? false,
    publicComment: input.publicComment?.trim() || null,
    privateComment: input.privateComment?.trim() || null,
    obfuscate: input.obfuscate ?? false,
    createdAt: now,
    updatedAt: now,
  };
  inTx(app.db, () => {
    // The same domain is always a conflict (updates go through the block's id); a parent
    // domain's block only when it is at least as strict.
    const existing = findDomainBlockFor(app.db, block.domain);
    if (existing && (existing.domain === block.domain || !stricterThan(block, existing))) {
      throw new DomainBlockExistsError(existing);
    }
    insertDomainBlock(app.db, block);
  });
  return findDomainBlockById(app.db, block.id)!;
}

/** Blocks shown on the public list (silence and suspend), silence first, then by domain. */
export function getPublicDomainBlocks(app: App): DomainBlock[] {
  return listUserFacingDomainBlocks(app.db);
}
