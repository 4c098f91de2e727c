// The CSV exports of Mastodon's settings (app/models/export.rb): the same columns, headers and
// order, so a file exported here imports into Mastodon and back. `followers` is roost's own
// addition (Mastodon only counts them); it is a bare list of addresses like the blocks file.
import { stringify } from "csv-stringify/sync";
import type { App } from "../app.ts";
import type { Account } from "../storage/accounts.ts";
import type { Row } from "../db/db.ts";
import {
  exportCounts,
  iterateBlocked,
  iterateBlockedDomains,
  iterateBookmarkUris,
  iterateFollowers,
  iterateFollowing,
  iterateListMembers,
  iterateMuted,
} from "../storage/csv-export.ts";

export const EXPORT_KINDS = ["follows", "followers", "lists", "blocks", "mutes", "domain_blocks", "bookmarks"] as const;
export type ExportKind = (typeof EXPORT_KINDS)[number];

/** The download names Mastodon gives these files (its import form expects the same). */
export const EXPORT_FILENAMES: Record<ExportKind, string> = {
  follows: "following_accounts.csv",
  followers: "followers.csv",
  lists: "lists.csv",
  blocks: "blocked_accounts.csv",
  mutes: "muted_accounts.csv",
  domain_blocks: "blocked_domains.csv",
  bookmarks: "bookmarks.csv",
};

export function isExportKind(v: string): v is ExportKind {
  return (EXPORT_KINDS as readonly string[]).includes(v);
}

/** Mastodon's `acct` for exports: local accounts carry our domain too. */
function acct(app: App, r: Row): string {
  return `${r.username}@${r.domain ?? app.config.domain}`;
}

const bool = (v: unknown) => (Number(v) ? "true" : "false");

function languages(raw: unknown): string {
  if (typeof raw !== "string") return "";
  try {
    const list = JSON.parse(raw) as unknown;
    return Array.isArray(list) ? list.join(", ") : "";
  } catch {
    return "";
  }
}

function rowsOf(app: App, account: Account, kind: ExportKind): { header?: string[]; rows: Iterable<string[]> } {
  const db = app.db;
  const map = function* (it: Iterable<Row>, f: (r: Row) => string[]) {
    for (const r of it) yield f(r);
  };
  switch (kind) {
    case "follows":
      return {
        header: ["Account address", "Show boosts", "Notify on new posts", "Languages"],
        rows: map(iterateFollowing(db, account.id), (r) => [acct(app, r), bool(r.show_reblogs), bool(r.notify), languages(r.languages)]),
      };
    case "followers":
      return { rows: map(iterateFollowers(db, account.id), (r) => [acct(app, r)]) };
    case "blocks":
      return { rows: map(iterateBlocked(db, account.id), (r) => [acct(app, r)]) };
    case "mutes":
      return {
        header: ["Account address", "Hide notifications"],
        rows: map(iterateMuted(db, account.id, app.now()), (r) => [acct(app, r), bool(r.hide_notifications)]),
      };
    case "lists":
      return { rows: map(iterateListMembers(db, account.id), (r) => [String(r.title), acct(app, r)]) };
    case "domain_blocks":
      return { rows: map(iterateBlockedDomains(db, account.id), (r) => [String(r.domain)]) };
    case "bookmarks":
      return { rows: map(iterateBookmarkUris(db, account.id), (r) => [String(r.uri)]) };
  }
}

/** The whole CSV file of one export (lists of a person's relationships are small enough to build at once). */
export function exportCsv(app: App, account: Account, kind: ExportKind): string {
  const { header, rows } = rowsOf(app, account, kind);
  const all = header ? [header, ...rows] : [...rows];
  // Ruby's CSV writes "\n" line ends and quotes only fields that need it; csv-stringify's defaults match.
  return stringify(all);
}

export function exportTotals(app: App, account: Account): Record<ExportKind, number> {
  const c = exportCounts(app.db, account.id, app.now());
  return { follows: c.follows, followers: c.followers, lists: c.lists, blocks: c.blocks, mutes: c.mutes, domain_blocks: c.domain_blocks, bookmarks: c.bookmarks };
}
