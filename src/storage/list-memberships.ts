import { type DB, stmt } from "../db/db.ts";
import type { Id } from "../lib/ids.ts";

/**
 * Whether any list contains the account. The fan-out asks first: its list insert is one
 * statement that costs far more than this lookup even when it writes nothing, and most
 * authors are in no list.
 */
export function isInAnyList(db: DB, accountId: Id): boolean {
  return !!stmt(db, "SELECT 1 FROM list_accounts WHERE account_id = ? LIMIT 1").get(BigInt(accountId));
}
