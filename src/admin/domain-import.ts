import { parse } from "csv-parse/sync";
import type { App } from "../app.ts";
import { ApiError } from "../errors.ts";
import { normalizeDomain } from "../services/domain-blocks.ts";
import { findDomainBlockFor, type DomainBlock } from "../storage/domain-blocks.ts";
import { type Actor, requireCan } from "./actor.ts";
import { blockDomain } from "./domain-blocks.ts";

// `roost domains import FILE`: Mastodon's domain block list export (Admin::ExportDomainBlocks):
// a CSV with the header `#domain,#severity,#reject_media,#reject_reports,#public_comment,#obfuscate`
// (a file without it is read in that column order). As Mastodon's import does: a domain that a
// block already covers (itself or a parent) is skipped, a missing severity is suspend, the
// private comment says where the block came from, and at most 20,000 rows are read. Each block
// goes through blockDomain, so it is enforced and audited like one made by hand.

const HEADERS = ["#domain", "#severity", "#reject_media", "#reject_reports", "#public_comment", "#obfuscate"];
const ROWS_LIMIT = 20_000;
const SEVERITIES = new Set(["silence", "suspend", "noop"]);

export interface ImportResult {
  created: DomainBlock[];
  skipped: { domain: string; reason: string }[];
}

const bool = (v: string | undefined) => (v ?? "").trim().toLowerCase() === "true";

/** The rows of the file, by header (Mastodon's own header, or none: its column order). */
function readRows(text: string): Record<string, string>[] {
  const firstLine = text.replace(/^\uFEFF/, "").split(/\r?\n/, 1)[0] ?? "";
  const hasHeader = firstLine.trim().startsWith("#domain");
  try {
    return parse(text, {
      bom: true,
      columns: hasHeader ? (names: string[]) => names.map((n) => n.trim()) : HEADERS,
      skip_empty_lines: true,
      relax_column_count: true,
      trim: true,
      to: ROWS_LIMIT,
    }) as Record<string, string>[];
  } catch (e) {
    throw new Error(`not a CSV domain block list: ${(e as Error).message.split("\n")[0]}`);
  }
}

export function importDomainBlocks(app: App, actor: Actor, text: string, source: string): ImportResult {
  requireCan(actor, "manage_federation");
  const rows = readRows(text);
  const privateComment = `Imported from ${source} on ${new Date(app.now()).toISOString().slice(0, 10)}`;
  const out: ImportResult = { created: [], skipped: [] };
  for (const row of rows) {
    const raw = row["#domain"] ?? "";
    const domain = normalizeDomain(raw);
    if (!domain) {
      out.skipped.push({ domain: raw, reason: "domain is invalid" });
      continue;
    }
    const existing = findDomainBlockFor(app.db, domain);
    if (existing) {
      out.skipped.push({ domain, reason: `already covered by the block on ${existing.domain}` });
      continue;
    }
    const severity = (row["#severity"] || "suspend").toLowerCase();
    if (!SEVERITIES.has(severity)) {
      out.skipped.push({ domain, reason: `severity ${severity.slice(0, 40)} is not included in the list` });
      continue;
    }
    try {
      out.created.push(
        blockDomain(app, actor, {
          domain,
          severity: severity as DomainBlock["severity"],
          rejectMedia: bool(row["#reject_media"]),
          rejectReports: bool(row["#reject_reports"]),
          publicComment: row["#public_comment"] || null,
          privateComment,
          obfuscate: bool(row["#obfuscate"]),
        }),
      );
    } catch (e) {
      // Permissions fail every row alike: stop at the first.
      if (e instanceof ApiError && e.status === 403) throw e;
      if (!(e instanceof ApiError)) throw e;
      out.skipped.push({ domain, reason: e.error.replace(/^Validation failed: /, "") });
    }
  }
  return out;
}
