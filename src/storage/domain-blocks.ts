import { type DB, type Row, stmt, str, num, bool } from "../db/db.ts";
import type { Id } from "../lib/ids.ts";
import { rowsPageById } from "./id-pages.ts";
import type { Page } from "./timelines.ts";

export type DomainBlockSeverity = "noop" | "silence" | "suspend";

/** An instance-level (admin) block of a remote domain and its subdomains. */
export interface DomainBlock {
  id: Id;
  domain: string;
  severity: DomainBlockSeverity;
  rejectMedia: boolean;
  rejectReports: boolean;
  publicComment: string | null;
  privateComment: string | null;
  obfuscate: boolean;
  createdAt: number;
  updatedAt: number;
}

function rowToDomainBlock(r: Row): DomainBlock {
  return {
    id: str(r.id),
    domain: r.domain as string,
    severity: r.severity as DomainBlockSeverity,
    rejectMedia: bool(r.reject_media),
    rejectReports: bool(r.reject_reports),
    publicComment: (r.public_comment as string | null) ?? null,
    privateComment: (r.private_comment as string | null) ?? null,
    obfuscate: bool(r.obfuscate),
    createdAt: num(r.created_at),
    updatedAt: num(r.updated_at),
  };
}

export function insertDomainBlock(db: DB, b: DomainBlock): void {
  stmt(
    db,
    `INSERT INTO domain_blocks (id, domain, severity, reject_media, reject_reports, public_comment, private_comment,
       obfuscate, created_at, updated_at)
     VALUES (@id, @domain, @severity, @rejectMedia, @rejectReports, @publicComment, @privateComment,
       @obfuscate, @createdAt, @updatedAt)`,
  ).run({
    ...b,
    id: BigInt(b.id),
    rejectMedia: b.rejectMedia ? 1 : 0,
    rejectReports: b.rejectReports ? 1 : 0,
    obfuscate: b.obfuscate ? 1 : 0,
  });
}

export function findDomainBlockById(db: DB, id: Id): DomainBlock | undefined {
  const r = stmt(db, "SELECT * FROM domain_blocks WHERE id = ?").get(BigInt(id)) as Row | undefined;
  return r && rowToDomainBlock(r);
}

export function findDomainBlockByDomain(db: DB, domain: string): DomainBlock | undefined {
  const r = stmt(db, "SELECT * FROM domain_blocks WHERE domain = ?").get(domain) as Row | undefined;
  return r && rowToDomainBlock(r);
}

/**
 * The block that applies to `domain`: on the domain itself or the closest parent domain
 * (a block covers subdomains), as Mastodon's DomainBlock.rule_for.
 */
export function findDomainBlockFor(db: DB, domain: string): DomainBlock | undefined {
  const r = stmt(
    db,
    `SELECT * FROM domain_blocks WHERE domain = @d OR substr(@d, -length(domain) - 1) = '.' || domain
     ORDER BY length(domain) DESC LIMIT 1`,
  ).get({ d: domain.toLowerCase() }) as Row | undefined;
  return r && rowToDomainBlock(r);
}

/** Blocks with user-facing limitations (silence, suspend): silence first, then by domain. */
export function listUserFacingDomainBlocks(db: DB): DomainBlock[] {
  return (
    stmt(
      db,
      `SELECT * FROM domain_blocks WHERE severity IN ('silence', 'suspend')
       ORDER BY CASE severity WHEN 'silence' THEN 1 ELSE 2 END, domain`,
    ).all() as Row[]
  ).map(rowToDomainBlock);
}

export function listDomainBlocksPage(db: DB, page: Page): DomainBlock[] {
  return rowsPageById(db, "domain_blocks", page).map(rowToDomainBlock);
}

export type DomainBlockPatch = Partial<Pick<DomainBlock, "severity" | "rejectMedia" | "rejectReports" | "publicComment" | "privateComment" | "obfuscate">>;

export function updateDomainBlock(db: DB, id: Id, patch: DomainBlockPatch, now: number): void {
  const cols: Record<keyof DomainBlockPatch, string> = {
    severity: "severity",
    rejectMedia: "reject_media",
    rejectReports: "reject_reports",
    publicComment: "public_comment",
    privateComment: "private_comment",
    obfuscate: "obfuscate",
  };
  const sets: string[] = ["updated_at = @now"];
  const params: Record<string, unknown> = { id: BigInt(id), now };
  for (const [k, col] of Object.entries(cols) as [keyof DomainBlockPatch, string][]) {
    const v = patch[k];
    if (v === undefined) continue;
    sets.push(`${col} = @${k}`);
    params[k] = typeof v === "boolean" ? (v ? 1 : 0) : v;
  }
  stmt(db, `UPDATE domain_blocks SET ${sets.join(", ")} WHERE id = @id`).run(params);
}

export function deleteDomainBlock(db: DB, id: Id): void {
  stmt(db, "DELETE FROM domain_blocks WHERE id = ?").run(BigInt(id));
}

// Accounts of a blocked domain and its subdomains (Account.by_domain_and_subdomains). Account
// domains keep a port (`host:8443`), which blocks are not written with.
/** SQL true when the account domain in `col` is @d or a subdomain of it, port aside. */
export function ofBlockedDomainSql(col: string): string {
  const host = `(CASE WHEN ${col} LIKE '%:%' AND ${col} NOT LIKE '[%' THEN substr(${col}, 1, instr(${col}, ':') - 1) ELSE ${col} END)`;
  return `(${host} = @d OR substr(${host}, -length(@d) - 1) = '.' || @d)`;
}
const OF_DOMAIN = ofBlockedDomainSql("domain");

/** Silences the domain's accounts not silenced yet, stamped with the block's time. */
export function silenceDomainAccounts(db: DB, domain: string, at: number): number {
  return stmt(db, `UPDATE accounts SET silenced_at = @at WHERE silenced_at IS NULL AND ${OF_DOMAIN}`).run({ d: domain, at }).changes;
}

/** Lifts the silences and suspensions a block stamped (its own time), as the block changes or goes. */
export function liftDomainStamps(db: DB, domain: string, at: number, what: { silence: boolean; suspend: boolean }): void {
  if (what.silence) stmt(db, `UPDATE accounts SET silenced_at = NULL WHERE silenced_at = @at AND ${OF_DOMAIN}`).run({ d: domain, at });
  if (what.suspend) {
    stmt(
      db,
      `DELETE FROM account_deletion_requests WHERE account_id IN (SELECT id FROM accounts WHERE suspended_at = @at AND ${OF_DOMAIN})`,
    ).run({ d: domain, at });
    stmt(db, `UPDATE accounts SET suspended_at = NULL, suspension_origin = NULL WHERE suspended_at = @at AND ${OF_DOMAIN}`).run({ d: domain, at });
  }
}

/** Up to `limit` ids of the domain's accounts (subdomains too) above `afterId`, in id order. */
export function domainAccountIdsAfter(db: DB, domain: string, afterId: Id, limit: number): Id[] {
  return (
    stmt(db, `SELECT id FROM accounts WHERE id > @after AND ${OF_DOMAIN} ORDER BY id LIMIT @limit`).all({ d: domain, after: BigInt(afterId), limit: BigInt(limit) }) as Row[]
  ).map((r) => str(r.id));
}
