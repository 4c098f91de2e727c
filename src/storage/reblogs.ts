import { type DB, type Row, stmt, str } from "../db/db.ts";
import type { Id } from "../lib/ids.ts";
import { type Account, rowToAccount } from "./accounts.ts";
import { viewerFilter } from "./favourites.ts";
import { type Keyset, keysetSql } from "./keyset.ts";

/**
 * Accounts that boosted a status publicly (public/unlisted boosts only, as Mastodon), newest
 * boost first; `cursor` is the boost's status id. Suspended and viewer-hidden accounts are left out.
 */
export function pageRebloggingAccounts(db: DB, statusId: Id, viewerId: Id | null, k: Keyset, now: number): { cursor: Id; account: Account }[] {
  const q = keysetSql("s.id", k);
  const rows = stmt(
    db,
    `SELECT s.id AS page_cursor, a.* FROM statuses s JOIN accounts a ON a.id = s.account_id
     WHERE s.reblog_of_id = @status AND s.visibility IN ('public', 'unlisted') AND s.deleted_at IS NULL
       AND a.suspended_at IS NULL${viewerFilter("a.id")}${q.where} ${q.order}`,
  ).all({ ...q.params, status: BigInt(statusId), viewer: viewerId ? BigInt(viewerId) : null, now }) as Row[];
  if (q.reverse) rows.reverse();
  return rows.map((r) => ({ cursor: str(r.page_cursor), account: rowToAccount(r) }));
}
