import { type DB, type Row, stmt, str, strOrNull } from "../db/db.ts";
import type { Id } from "../lib/ids.ts";

// What an outgoing Flag (AP §5.9) needs of a report: read here, next to its one use, so the
// outbox does not depend on the reports service's storage.

export interface ReportForFlag {
  id: Id;
  reporterId: Id;
  targetAccountId: Id;
  comment: string;
  uri: string | null;
  /** Uris of the reported statuses that belong to the target (others are not sent). */
  statusUris: string[];
}

export function findReportForFlag(db: DB, reportId: Id): ReportForFlag | undefined {
  const r = stmt(db, "SELECT id, account_id, target_account_id, comment, uri, status_ids FROM reports WHERE id = ?").get(BigInt(reportId)) as
    | Row
    | undefined;
  if (!r) return undefined;
  const uris = stmt(
    db,
    `SELECT uri FROM statuses WHERE account_id = @target
       AND id IN (SELECT CAST(value AS INTEGER) FROM json_each(CASE WHEN json_valid(@ids) THEN @ids ELSE '[]' END)) ORDER BY id`,
  ).all({ target: r.target_account_id, ids: typeof r.status_ids === "string" ? r.status_ids : "[]" }) as Row[];
  return {
    id: str(r.id),
    reporterId: str(r.account_id),
    targetAccountId: str(r.target_account_id),
    comment: r.comment as string,
    uri: strOrNull(r.uri),
    statusUris: uris.map((u) => u.uri as string),
  };
}

/** Records the Flag's id on the report (once: a report is forwarded at most once). */
export function setReportUri(db: DB, reportId: Id, uri: string): void {
  stmt(db, "UPDATE reports SET uri = @uri WHERE id = @id AND uri IS NULL").run({ id: BigInt(reportId), uri });
}
