import { type DB, type Row, stmt, str, idListJson } from "../db/db.ts";
import type { Id } from "../lib/ids.ts";

/** Name and website of the apps that posted a page of statuses, in one query. */
export function findApplicationLabels(db: DB, ids: Iterable<Id>): Map<Id, { name: string; website: string | null }> {
  const out = new Map<Id, { name: string; website: string | null }>();
  const json = idListJson(ids);
  if (json === "[]") return out;
  const rows = stmt(db, "SELECT id, name, website FROM oauth_applications WHERE id IN (SELECT value FROM json_each(?))").all(json) as Row[];
  for (const r of rows) out.set(str(r.id), { name: r.name as string, website: (r.website as string | null) || null });
  return out;
}
