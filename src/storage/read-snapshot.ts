import type { App } from "../app.ts";
import { readTx } from "../db/db.ts";

/**
 * Runs `fn` in one read transaction, so that every batched read of a page (accounts, statuses,
 * reports) sees the same snapshot. For serializers, which read through storage and never
 * import db/ (test/unit/layering.test.ts).
 */
export function readSnapshot<T>(app: App, fn: () => T): T {
  return readTx(app.db, fn);
}
