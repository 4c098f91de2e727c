// CSV imports of the settings page, after Mastodon's BulkImport (app/models/form/import.rb,
// BulkImportService, BulkImportRowService): the file is checked and split into rows at once;
// a job then works through them. A row that fails (no such account, a block in the way) is
// recorded with its reason and the others still import. Remote accounts are resolved in the
// job, at most DOMAIN_BUDGET WebFinger look-ups per domain per run, so one file cannot make
// us hammer a server; the rest wait for the next run.
import { parse } from "csv-parse/sync";
import type { App } from "../app.ts";
import { ApiError, unprocessable } from "../errors.ts";
import { inTx } from "../db/db.ts";
import type { Account } from "../storage/accounts.ts";
import { findAccountByHandle, findAccountById } from "../storage/accounts.ts";
import {
  type BulkImport,
  type ImportType,
  failedImportRows,
  findBulkImport,
  finishImportRow,
  importRowData,
  insertBulkImport,
  listBulkImports,
  markImportFinished,
  pendingImportRows,
} from "../storage/bulk-imports.ts";
import { iterateBlocked, iterateBlockedDomains, iterateBookmarkUris, iterateFollowing, iterateMuted } from "../storage/csv-export.ts";
import { findStatusByUri } from "../storage/statuses.ts";
import { parseAcct, type Acct } from "./account-lookup.ts";
import { resolveAcct, resolveUrlTarget } from "./remote-lookup.ts";
import { followAccount, parseFollowLanguages, unfollowAccount } from "./follows.ts";
import { blockAccount, unblockAccount } from "./blocks.ts";
import { muteAccount, unmuteAccount } from "./mutes.ts";
import { blockDomain, requireDomainParam, unblockDomain } from "./account-domain-blocks.ts";
import { bookmarkStatus, unbookmarkStatus } from "./status-interactions.ts";
import { addListAccounts, createList, listsOf } from "./lists.ts";
import type { Row } from "../db/db.ts";

export type { BulkImport, ImportType };
export const IMPORT_JOB = "import.process";
export const IMPORT_TYPES: ImportType[] = ["following", "blocking", "muting", "domain_blocking", "bookmarks", "lists"];
/** Mastodon's Form::Import limits. */
export const MAX_IMPORT_ROWS = 20_000;
export const MAX_IMPORT_BYTES = 20 * 1024 * 1024;
/** Remote look-ups per domain per run, and the wait before the next run. */
export const DOMAIN_BUDGET = 10;
export const DOMAIN_PAUSE_MS = 30_000;
const ROWS_PER_RUN = 500;

// The header each file type may start with (Mastodon writes some, accepts all); the columns
// a headerless file has, in order.
const COLUMNS: Record<ImportType, string[]> = {
  following: ["Account address", "Show boosts", "Notify on new posts", "Languages"],
  blocking: ["Account address"],
  muting: ["Account address", "Hide notifications"],
  domain_blocking: ["#domain"],
  bookmarks: ["#uri"],
  lists: ["List name", "Account address"],
};

export function isImportType(v: string): v is ImportType {
  return (IMPORT_TYPES as string[]).includes(v);
}

/** The file's rows as {column: value}; throws 422 when the file as a whole cannot be read. */
export function parseImportCsv(type: ImportType, text: string): Record<string, string>[] {
  let records: string[][];
  try {
    records = parse(text.replace(/^\uFEFF/, ""), { relax_column_count: true, skip_empty_lines: true, trim: true, bom: true }) as string[][];
  } catch {
    throw unprocessable("Validation failed: Data is not a valid CSV file");
  }
  const cols = COLUMNS[type];
  // A header is recognised by its first cell (Mastodon's exports of following and mutes carry one).
  if (records.length > 0 && records[0][0]?.toLowerCase() === cols[0].toLowerCase()) records.shift();
  if (records.length === 0) throw unprocessable("Validation failed: Data is empty");
  if (records.length > MAX_IMPORT_ROWS) throw unprocessable(`Validation failed: Data can't exceed ${MAX_IMPORT_ROWS} rows`);
  return records.map((r) => Object.fromEntries(cols.map((c, i) => [c, r[i] ?? ""])));
}

/** Starts an import: the rows are stored and the job enqueued in one transaction. */
export function createImport(app: App, account: Account, o: { type: ImportType; overwrite: boolean; filename: string; text: string }): BulkImport {
  const rows = parseImportCsv(o.type, o.text).map((data) => ({ id: app.ids.next(), data }));
  const imp: BulkImport = {
    id: app.ids.next(),
    accountId: account.id,
    type: o.type,
    overwrite: o.overwrite,
    state: "in_progress",
    originalFilename: o.filename.slice(0, 255),
    totalItems: rows.length,
    processedItems: 0,
    importedItems: 0,
    createdAt: app.now(),
    finishedAt: null,
  };
  inTx(app.db, () => {
    insertBulkImport(app.db, imp, rows);
    app.jobs.enqueue(IMPORT_JOB, { importId: imp.id });
  });
  return imp;
}

export function recentImports(app: App, account: Account): { imp: BulkImport; failures: { row: Record<string, unknown>; error: string }[] }[] {
  return listBulkImports(app.db, account.id, 10).map((imp) => ({
    imp,
    failures: failedImportRows(app.db, imp.id, 50).map((r) => ({ row: r.data, error: r.error ?? "" })),
  }));
}

const key = (a: Acct) => `${a.username.toLowerCase()}@${a.domain ?? ""}`;
const rowKey = (app: App, r: Row) => key(parseAcct(app, `${r.username}@${r.domain ?? app.config.domain}`)!);
const truthy = (v: unknown, dflt: boolean) => (v === undefined || v === "" ? dflt : String(v).toLowerCase() === "true");

/** Thrown for a row whose remote look-up must wait for the next run (the domain's budget is spent). */
class Deferred extends Error {}

interface RunState {
  budget: Map<string, number>;
}

async function resolveRowAccount(app: App, raw: unknown, run: RunState): Promise<Account> {
  const acct = typeof raw === "string" ? parseAcct(app, raw) : undefined;
  if (!acct) throw unprocessable("Account address is invalid");
  const known = findAccountByHandle(app.db, acct.username, acct.domain);
  if (known) return known;
  if (acct.domain === null) throw new ApiError(404, "Account not found");
  const used = run.budget.get(acct.domain) ?? 0;
  if (used >= DOMAIN_BUDGET) throw new Deferred();
  run.budget.set(acct.domain, used + 1);
  const found = await resolveAcct(app, acct);
  if (!found) throw new ApiError(404, "Account not found");
  return found;
}

async function importRow(app: App, me: Account, type: ImportType, data: Record<string, unknown>, run: RunState): Promise<void> {
  switch (type) {
    case "following": {
      const target = await resolveRowAccount(app, data["Account address"], run);
      const langs = String(data.Languages ?? "").split(",").map((l) => l.trim());
      followAccount(app, me, target, {
        showReblogs: truthy(data["Show boosts"], true),
        notify: truthy(data["Notify on new posts"], false),
        languages: parseFollowLanguages(langs) ?? null,
      });
      return;
    }
    case "blocking":
      return blockAccount(app, me, await resolveRowAccount(app, data["Account address"], run));
    case "muting":
      muteAccount(app, me, await resolveRowAccount(app, data["Account address"], run), { notifications: truthy(data["Hide notifications"], true) });
      return;
    case "domain_blocking":
      return blockDomain(app, me, requireDomainParam(String(data["#domain"] ?? "")));
    case "bookmarks": {
      const uri = String(data["#uri"] ?? "");
      let status = findStatusByUri(app.db, uri);
      if (!status && /^https?:\/\//i.test(uri)) {
        const host = new URL(uri).hostname.toLowerCase();
        const used = run.budget.get(host) ?? 0;
        if (used >= DOMAIN_BUDGET) throw new Deferred();
        run.budget.set(host, used + 1);
        const t = await resolveUrlTarget(app, uri);
        if (t && "status" in t) status = t.status;
      }
      if (!status) throw new ApiError(404, "Post not found");
      bookmarkStatus(app, me, status.id);
      return;
    }
    case "lists": {
      const title = String(data["List name"] ?? "").trim();
      if (!title) throw unprocessable("List name can't be blank");
      const target = await resolveRowAccount(app, data["Account address"], run);
      const list = listsOf(app, me.id).find((l) => l.title === title) ?? createList(app, me.id, { title });
      // Mastodon's import follows a list member first: a list only holds accounts one follows.
      if (target.id !== me.id) followAccount(app, me, target, {});
      try {
        addListAccounts(app, me.id, list.id, [target.id]);
      } catch (e) {
        if (!(e instanceof ApiError && /already been taken/.test(e.error))) throw e;
      }
      return;
    }
  }
}

/** Overwrite: what the account has that the file does not list goes first (Mastodon's BulkImportService). */
async function removeUnlisted(app: App, me: Account, imp: BulkImport): Promise<void> {
  const data = importRowData(app.db, imp.id);
  const accts = (col: string) => new Set(data.map((d) => parseAcct(app, String(d[col] ?? ""))).filter((a) => a !== undefined).map(key));
  const each = (it: Iterable<Row>, keep: Set<string>, drop: (a: Account) => void) => {
    const gone: Row[] = [];
    for (const r of it) if (!keep.has(rowKey(app, r))) gone.push(r);
    for (const r of gone) {
      const a = findAccountByHandle(app.db, String(r.username), (r.domain as string | null) ?? null);
      if (a) drop(a);
    }
  };
  switch (imp.type) {
    case "following":
      return each(iterateFollowing(app.db, me.id), accts("Account address"), (a) => unfollowAccount(app, me, a));
    case "blocking":
      return each(iterateBlocked(app.db, me.id), accts("Account address"), (a) => unblockAccount(app, me, a));
    case "muting":
      return each(iterateMuted(app.db, me.id, app.now()), accts("Account address"), (a) => unmuteAccount(app, me, a));
    case "domain_blocking": {
      const keep = new Set(data.map((d) => String(d["#domain"] ?? "").trim().toLowerCase()));
      const gone = [...iterateBlockedDomains(app.db, me.id)].map((r) => String(r.domain)).filter((d) => !keep.has(d));
      for (const d of gone) unblockDomain(app, me, d);
      return;
    }
    case "bookmarks": {
      const keep = new Set(data.map((d) => String(d["#uri"] ?? "")));
      const gone = [...iterateBookmarkUris(app.db, me.id)].map((r) => String(r.uri)).filter((u) => !keep.has(u));
      for (const u of gone) {
        const s = findStatusByUri(app.db, u);
        if (s) unbookmarkStatus(app, me, s.id);
      }
      return;
    }
    case "lists":
      return; // Mastodon's overwrite of lists only adds: lists are not deleted by an import.
  }
}

/** The job: one run handles up to ROWS_PER_RUN rows, then re-enqueues itself while rows remain. */
export async function processImport(app: App, payload: { importId?: string }): Promise<void> {
  const imp = payload.importId ? findBulkImport(app.db, payload.importId) : undefined;
  if (!imp || imp.state === "finished") return;
  const me = findAccountById(app.db, imp.accountId);
  if (!me) return;
  if (imp.overwrite && imp.processedItems === 0) await removeUnlisted(app, me, imp);
  const run: RunState = { budget: new Map() };
  let deferred = false;
  for (const row of pendingImportRows(app.db, imp.id, ROWS_PER_RUN)) {
    let error: string | null = null;
    try {
      await importRow(app, me, imp.type, row.data, run);
    } catch (e) {
      if (e instanceof Deferred) {
        deferred = true;
        continue;
      }
      if (!(e instanceof ApiError)) throw e;
      error = e.status === 503 ? "The account's server could not be reached" : e.error;
    }
    finishImportRow(app.db, imp.id, row.id, error);
  }
  if (pendingImportRows(app.db, imp.id, 1).length === 0) markImportFinished(app.db, imp.id, app.now());
  else app.jobs.enqueue(IMPORT_JOB, { importId: imp.id }, { runAt: app.now() + (deferred ? DOMAIN_PAUSE_MS : 0) });
}
