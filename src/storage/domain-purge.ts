import { type DB, type Row, stmt, str, num } from "../db/db.ts";
import type { Id } from "../lib/ids.ts";

// What `roost domains purge` removes: remote accounts by their exact stored domain
// (`host[:port]`), their posts (counted for --dry-run) and the domains' custom emojis.

/** Every domain remote accounts are stored under (accounts_domain index). */
export function remoteAccountDomains(db: DB): string[] {
  return (stmt(db, "SELECT DISTINCT domain FROM accounts WHERE domain IS NOT NULL ORDER BY domain").all() as Row[]).map((r) => r.domain as string);
}

/** The next batch of accounts of these domains, by id. */
export function accountIdsOfDomainsAfter(db: DB, domains: string[], afterId: Id, limit: number): Id[] {
  return (
    stmt(db, "SELECT id FROM accounts WHERE domain IN (SELECT value FROM json_each(@d)) AND id > @after ORDER BY id LIMIT @limit").all({
      d: JSON.stringify(domains),
      after: BigInt(afterId),
      limit: BigInt(limit),
    }) as Row[]
  ).map((r) => str(r.id));
}

export function countDomainContent(db: DB, domains: string[]): { accounts: number; statuses: number; emojis: number } {
  const d = JSON.stringify(domains);
  const n = (sql: string) => num((stmt(db, sql).get({ d }) as Row).n);
  return {
    accounts: n("SELECT count(*) AS n FROM accounts WHERE domain IN (SELECT value FROM json_each(@d))"),
    statuses: n("SELECT count(*) AS n FROM statuses WHERE account_id IN (SELECT id FROM accounts WHERE domain IN (SELECT value FROM json_each(@d)))"),
    emojis: n("SELECT count(*) AS n FROM custom_emojis WHERE domain IN (SELECT value FROM json_each(@d))"),
  };
}

/** Deletes a batch of the domains' custom emojis; their cached files, for the caller to remove. */
export function deleteDomainEmojiBatch(db: DB, domains: string[], limit: number): { count: number; files: string[] } {
  const rows = stmt(db, "SELECT id, file FROM custom_emojis WHERE domain IN (SELECT value FROM json_each(@d)) LIMIT @limit").all({
    d: JSON.stringify(domains),
    limit: BigInt(limit),
  }) as Row[];
  for (const r of rows) stmt(db, "DELETE FROM custom_emojis WHERE id = ?").run(r.id);
  return { count: rows.length, files: rows.map((r) => r.file as string | null).filter((f): f is string => !!f) };
}
