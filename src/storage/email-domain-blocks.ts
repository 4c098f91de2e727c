import { type DB, type Row, stmt, str, num, bool } from "../db/db.ts";
import type { Id } from "../lib/ids.ts";
import { rowsPageById } from "./id-pages.ts";
import type { Page } from "./timelines.ts";

/** A blocked (or approval-only) e-mail domain, covering its subdomains. */
export interface EmailDomainBlock {
  id: Id;
  domain: string;
  allowWithApproval: boolean;
  createdAt: number;
  updatedAt: number;
}

const rowTo = (r: Row): EmailDomainBlock => ({
  id: str(r.id),
  domain: r.domain as string,
  allowWithApproval: bool(r.allow_with_approval),
  createdAt: num(r.created_at),
  updatedAt: num(r.updated_at),
});

export function insertEmailDomainBlock(db: DB, b: EmailDomainBlock): void {
  stmt(db, "INSERT INTO email_domain_blocks (id, domain, allow_with_approval, created_at, updated_at) VALUES (@id, @domain, @approval, @createdAt, @updatedAt)").run({
    id: BigInt(b.id),
    domain: b.domain,
    approval: b.allowWithApproval ? 1 : 0,
    createdAt: b.createdAt,
    updatedAt: b.updatedAt,
  });
}

export function findEmailDomainBlockById(db: DB, id: Id): EmailDomainBlock | undefined {
  const r = stmt(db, "SELECT * FROM email_domain_blocks WHERE id = ?").get(BigInt(id)) as Row | undefined;
  return r && rowTo(r);
}

export function findEmailDomainBlockByDomain(db: DB, domain: string): EmailDomainBlock | undefined {
  const r = stmt(db, "SELECT * FROM email_domain_blocks WHERE domain = ?").get(domain) as Row | undefined;
  return r && rowTo(r);
}

/** The blocks covering `domain` (on itself or a parent domain), outright blocks first. */
export function emailDomainBlocksFor(db: DB, domain: string): EmailDomainBlock[] {
  return (
    stmt(db, "SELECT * FROM email_domain_blocks WHERE domain = @d OR substr(@d, -length(domain) - 1) = '.' || domain ORDER BY allow_with_approval, length(domain) DESC").all({
      d: domain.toLowerCase(),
    }) as Row[]
  ).map(rowTo);
}

export function listEmailDomainBlocksPage(db: DB, page: Page): EmailDomainBlock[] {
  return rowsPageById(db, "email_domain_blocks", page).map(rowTo);
}

export function deleteEmailDomainBlock(db: DB, id: Id): void {
  stmt(db, "DELETE FROM email_domain_blocks WHERE id = ?").run(BigInt(id));
}

export function insertEmailDomainBlockAttempt(db: DB, blockId: Id, ip: string | null, now: number): void {
  stmt(db, "INSERT INTO email_domain_block_attempts (block_id, day, ip, created_at) VALUES (?, ?, ?, ?)").run(BigInt(blockId), Math.floor(now / 86_400_000), ip, now);
}

/** Per day from `fromDay` on: attempts (`uses`) and distinct addresses (`accounts`), by block. */
export function emailDomainBlockAttempts(db: DB, blockIds: Id[], fromDay: number): Map<Id, Map<number, { uses: number; accounts: number }>> {
  const out = new Map<Id, Map<number, { uses: number; accounts: number }>>();
  if (blockIds.length === 0) return out;
  const rows = stmt(
    db,
    `SELECT block_id, day, count(*) AS uses, count(DISTINCT coalesce(ip, '')) AS accounts FROM email_domain_block_attempts
     WHERE block_id IN (SELECT CAST(value AS INTEGER) FROM json_each(@ids)) AND day >= @from GROUP BY block_id, day`,
  ).all({ ids: JSON.stringify(blockIds.map((id) => BigInt(id).toString())), from: fromDay }) as Row[];
  for (const r of rows) {
    const id = str(r.block_id);
    if (!out.has(id)) out.set(id, new Map());
    out.get(id)!.set(num(r.day), { uses: num(r.uses), accounts: num(r.accounts) });
  }
  return out;
}

/** Whether there is any block at all (no block: no DNS lookup at sign-up). */
export function anyEmailDomainBlock(db: DB): boolean {
  return stmt(db, "SELECT 1 FROM email_domain_blocks LIMIT 1").get() !== undefined;
}
