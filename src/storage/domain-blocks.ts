import { type DB, type Row, stmt, str, num, bool } from "../db/db.ts";
import type { Id } from "../lib/ids.ts";

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
