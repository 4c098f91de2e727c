import { type DB, type Row, stmt, str } from "../db/db.ts";
import type { Id } from "../lib/ids.ts";
import type { KeysetPage } from "./relationship-pages.ts";

// A user's own domain blocks (not the instance's, see domain-blocks.ts). Domains are stored
// normalised (lower-case ASCII), as relationship-checks.ts compares them.

/** Returns false when the block already existed. */
export function insertAccountDomainBlock(db: DB, b: { id: Id; accountId: Id; domain: string; createdAt: number }): boolean {
  return (
    stmt(db, "INSERT INTO account_domain_blocks (id, account_id, domain, created_at) VALUES (?, ?, ?, ?) ON CONFLICT DO NOTHING").run(
      BigInt(b.id),
      BigInt(b.accountId),
      b.domain,
      b.createdAt,
    ).changes > 0
  );
}

export function deleteAccountDomainBlock(db: DB, accountId: Id, domain: string): boolean {
  return stmt(db, "DELETE FROM account_domain_blocks WHERE account_id = ? AND domain = ?").run(BigInt(accountId), domain).changes > 0;
}

/** The blocked domains, newest first; cursor = block id (hidden). */
export function listAccountDomainBlocksPage(db: DB, accountId: Id, page: KeysetPage): { cursor: Id; domain: string }[] {
  if (page.limit === 0) return [];
  let where = "";
  const params: Record<string, unknown> = { accountId: BigInt(accountId), limit: page.limit };
  if (page.maxId) {
    where += " AND id < @maxId";
    params.maxId = BigInt(page.maxId);
  }
  const ascending = page.minId !== undefined;
  if (ascending) {
    where += " AND id > @minId";
    params.minId = BigInt(page.minId!);
  } else if (page.sinceId) {
    where += " AND id > @sinceId";
    params.sinceId = BigInt(page.sinceId);
  }
  const rows = stmt(
    db,
    `SELECT id, domain FROM account_domain_blocks WHERE account_id = @accountId${where} ORDER BY id ${ascending ? "ASC" : "DESC"} LIMIT @limit`,
  ).all(params) as Row[];
  const out = rows.map((r) => ({ cursor: str(r.id), domain: r.domain as string }));
  return ascending ? out.reverse() : out;
}

/** Notifications from accounts of `domain` to `recipientId` (cleared when the domain is blocked). */
export function deleteNotificationsFromDomain(db: DB, recipientId: Id, domain: string): void {
  stmt(
    db,
    `DELETE FROM notifications WHERE account_id = ? AND from_account_id IN
       (SELECT id FROM accounts WHERE domain IS NOT NULL AND lower(domain) = ?)`,
  ).run(BigInt(recipientId), domain);
}
