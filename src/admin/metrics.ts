import type { App } from "../app.ts";
import { missingParam, notFound, unprocessable } from "../errors.ts";
import { isId } from "../lib/ids.ts";
import { type DayCounts, type KeyCount, type Window } from "../storage/admin-metrics.ts";
import * as q from "../storage/admin-metrics.ts";
import { ROOST_VERSION } from "../version.ts";
import { type Actor, requireCan } from "./actor.ts";

// The dashboard figures of Mastodon's admin API (POST /api/v1/admin/measures, /dimensions,
// /retention; Admin::Metrics::* in Mastodon), computed from our own tables for the requested
// dates. Dates are whole UTC days: the time part of start_at and end_at is ignored and both
// days are included. Where Mastodon's queries differ by accident (some totals stop at the
// midnight that starts end_at, the "previous" period overlaps the first day) we use whole
// days throughout: total is the sum of data, previous_total the same number of days just
// before start_at.

const DAY = 86_400_000;
/** A bound on the work one request can ask for (a day per point). */
const MAX_DAYS = 5 * 366;
/** Retention is quadratic in its buckets: cohorts × later buckets. */
const MAX_RETENTION_BUCKETS = 400;

export interface DayRange {
  /** UTC midnight of start_at, ms. */
  first: number;
  /** UTC midnight of end_at, ms (included). */
  last: number;
}

/** A date as Mastodon's `to_date` reads it: the calendar date written at the start of the string. */
export function parseDay(name: string, v: string | undefined): number {
  if (v === undefined || v.trim() === "") throw missingParam(name);
  const m = /^\s*(\d{4})-(\d{2})-(\d{2})(?:[T ]([01]\d|2[0-3]):[0-5]\d(?::[0-5]\d(?:\.\d{1,9})?)?(?:Z|[+-]\d{2}:?\d{2})?)?\s*$/.exec(v.slice(0, 64));
  if (m) {
    const [y, mo, d] = [Number(m[1]), Number(m[2]), Number(m[3])];
    const t = Date.UTC(y, mo - 1, d);
    const back = new Date(t);
    if (y >= 1970 && back.getUTCFullYear() === y && back.getUTCMonth() === mo - 1 && back.getUTCDate() === d) return t;
  }
  throw unprocessable(`Validation failed: ${name} is not a valid date`);
}

export function dayRange(startAt: string | undefined, endAt: string | undefined): DayRange {
  const first = parseDay("start_at", startAt);
  const last = parseDay("end_at", endAt);
  if ((last - first) / DAY + 1 > MAX_DAYS) throw unprocessable(`Validation failed: the period is longer than ${MAX_DAYS} days`);
  return { first, last };
}

const ms2id = (ms: number) => BigInt(Math.max(0, ms)) << 16n;
export function windowOf(first: number, lastIncluded: number): Window {
  const to = lastIncluded + DAY;
  return { from: first, to, fromId: ms2id(first) };
}
const days = (r: DayRange) => Math.max(0, (r.last - r.first) / DAY + 1);
const previousWindow = (r: DayRange) => windowOf(r.first - days(r) * DAY, r.first - DAY);

export const isoDay = (ms: number) => new Date(ms).toISOString().slice(0, 10) + "T00:00:00Z";

/** One point per day of the range, zero where nothing happened. */
function series(r: DayRange, counts: DayCounts): { date: string; value: string }[] {
  const out: { date: string; value: string }[] = [];
  for (let d = r.first; d <= r.last; d += DAY) out.push({ date: isoDay(d), value: String(counts.get(d) ?? 0) });
  return out;
}
const sum = (counts: DayCounts) => [...counts.values()].reduce((a, b) => a + b, 0);

// --- measures

export interface Measure {
  key: string;
  unit: string | null;
  total: number;
  /** Absent for measures whose total is not limited to the period (Mastodon's total_in_time_range?). */
  previousTotal?: number;
  /** For unit-bearing measures. */
  humanValue?: string;
  data: { date: string; value: string }[];
}

/** The per-key options (`tag_accounts[id]`, `instance_accounts[domain]`), as given. */
export type KeyOptions = (key: string) => Record<string, string | undefined> | undefined;

function tagOption(app: App, key: string, opts: KeyOptions): string {
  const o = opts(key);
  if (!o) throw missingParam(key);
  const id = o.id?.trim();
  if (!id || !isId(id) || !q.tagExists(app.db, id)) throw notFound();
  return id;
}

function domainOption(key: string, opts: KeyOptions): string {
  const domain = opts(key)?.domain?.trim().toLowerCase();
  if (!domain) throw missingParam(key);
  return domain.slice(0, 512);
}

type MeasureFn = (app: App, r: DayRange, opts: KeyOptions) => Omit<Measure, "key" | "unit">;

const inPeriod =
  (byDay: (app: App, w: Window) => DayCounts, total?: (app: App, w: Window) => number): MeasureFn =>
  (app, r) => {
    const w = windowOf(r.first, r.last);
    const counts = byDay(app, w);
    const pw = previousWindow(r);
    return {
      total: total ? total(app, w) : sum(counts),
      previousTotal: total ? total(app, pw) : sum(byDay(app, pw)),
      data: series(r, counts),
    };
  };

const ofTag =
  (byDay: (app: App, tag: string, w: Window) => DayCounts, total: ((app: App, tag: string, w: Window) => number) | null, key: string): MeasureFn =>
  (app, r, opts) => {
    const tag = tagOption(app, key, opts);
    const f = inPeriod(
      (a, w) => byDay(a, tag, w),
      total ? (a, w) => total(a, tag, w) : undefined,
    );
    return f(app, r, opts);
  };

const ofInstance =
  (read: (app: App, domain: string, w: Window) => { total: number; days: DayCounts }, key: string): MeasureFn =>
  (app, r, opts) => {
    const domain = domainOption(key, opts);
    const { total, days } = read(app, domain, windowOf(r.first, r.last));
    return { total, data: series(r, days) };
  };

const MEASURES: Record<string, { unit?: string; fn: MeasureFn }> = {
  active_users: { fn: inPeriod((a, w) => q.activeUsersByDay(a.db, w), (a, w) => q.activeUsersIn(a.db, w)) },
  new_users: { fn: inPeriod((a, w) => q.newUsersByDay(a.db, w)) },
  interactions: { fn: inPeriod((a, w) => q.interactionsByDay(a.db, w)) },
  opened_reports: { fn: inPeriod((a, w) => q.openedReportsByDay(a.db, w)) },
  resolved_reports: { fn: inPeriod((a, w) => q.resolvedReportsByDay(a.db, w)) },
  tag_accounts: { fn: ofTag((a, t, w) => q.tagAccountsByDay(a.db, t, w), (a, t, w) => q.tagAccountsIn(a.db, t, w), "tag_accounts") },
  tag_uses: { fn: ofTag((a, t, w) => q.tagUsesByDay(a.db, t, w), null, "tag_uses") },
  tag_servers: { fn: ofTag((a, t, w) => q.tagServersByDay(a.db, t, w), (a, t, w) => q.tagServersIn(a.db, t, w), "tag_servers") },
  instance_accounts: { fn: ofInstance((a, d, w) => q.instanceAccounts(a.db, d, w), "instance_accounts") },
  instance_media_attachments: { unit: "bytes", fn: ofInstance((a, d, w) => q.instanceMedia(a.db, d, w), "instance_media_attachments") },
  instance_reports: { fn: ofInstance((a, d, w) => q.instanceReports(a.db, d, w), "instance_reports") },
  instance_statuses: { fn: ofInstance((a, d, w) => q.instanceStatuses(a.db, d, w), "instance_statuses") },
  instance_follows: { fn: ofInstance((a, d, w) => q.instanceFollows(a.db, d, w), "instance_follows") },
  instance_followers: { fn: ofInstance((a, d, w) => q.instanceFollowers(a.db, d, w), "instance_followers") },
};

export const MEASURE_KEYS = Object.keys(MEASURES);

/** Unknown keys are skipped, as Mastodon's Admin::Metrics::Measure.retrieve does; repeats are answered once each. */
export function readMeasures(app: App, actor: Actor, keys: string[], r: DayRange, opts: KeyOptions): Measure[] {
  requireCan(actor, "view_dashboard");
  const out: Measure[] = [];
  for (const key of keys) {
    const m = Object.hasOwn(MEASURES, key) ? MEASURES[key] : undefined;
    if (!m) continue;
    const v = m.fn(app, r, opts);
    out.push({ key, unit: m.unit ?? null, ...v, ...(m.unit === "bytes" ? { humanValue: humanSize(v.total) } : {}) });
  }
  return out;
}

/** Daily figures of the admin dashboard page: sign-ups, active users and posts written here. */
export function dashboardDays(app: App, actor: Actor, r: DayRange): { day: number; signUps: number; activeUsers: number; posts: number }[] {
  requireCan(actor, "view_dashboard");
  const w = windowOf(r.first, r.last);
  const [signUps, active, posts] = [q.newUsersByDay(app.db, w), q.activeUsersByDay(app.db, w), q.localPostsByDay(app.db, w)];
  const out = [];
  for (let d = r.first; d <= r.last; d += DAY) out.push({ day: d, signUps: signUps.get(d) ?? 0, activeUsers: active.get(d) ?? 0, posts: posts.get(d) ?? 0 });
  return out;
}

// --- dimensions

export interface DimensionItem {
  key: string;
  human_key: string;
  value: string;
  unit?: string;
  human_value?: string;
}
export interface Dimension {
  key: string;
  data: DimensionItem[];
}

export interface DimensionContext {
  /** Disk use, measured by the caller (ops/): space_usage. */
  spaceUsage: () => { databaseBytes: number; mediaBytes: number };
}

function versions(app: App): { key: string; human_key: string; value: string }[] {
  return [
    { key: "roost", human_key: "roost", value: ROOST_VERSION },
    { key: "nodejs", human_key: "Node.js", value: process.versions.node },
    { key: "sqlite", human_key: "SQLite", value: q.sqliteVersion(app.db) },
  ];
}

const counted = (rows: KeyCount[], key: (k: string | null) => string, human: (k: string | null) => string = key): DimensionItem[] =>
  rows.map((r) => ({ key: key(r.key), human_key: human(r.key), value: String(r.n) }));

type DimensionFn = (app: App, w: Window, limit: number, opts: KeyOptions, ctx: DimensionContext) => DimensionItem[];

const bytesItem = (key: string, human: string, bytes: number): DimensionItem => ({ key, human_key: human, value: String(bytes), unit: "bytes", human_value: humanSize(bytes) });

const DIMENSIONS: Record<string, DimensionFn> = {
  languages: (app, w, limit) => counted(q.localesOfActiveUsers(app.db, w, limit), (k) => k ?? "und", (k) => languageName(k ?? "und")),
  sources: (app, w, limit) => counted(q.signUpSources(app.db, w, limit), (k) => k ?? "web", (k) => k ?? "Website"),
  servers: (app, w, limit) => counted(q.statusesByServer(app.db, w, limit), (k) => k ?? app.config.domain),
  space_usage: (_app, _w, _limit, _opts, ctx) => {
    const u = ctx.spaceUsage();
    return [bytesItem("sqlite", "SQLite", u.databaseBytes), bytesItem("media", "Media storage", u.mediaBytes)];
  },
  software_versions: (app) => versions(app).map((v) => ({ ...v, human_value: v.value })),
  tag_servers: (app, w, limit, opts) => counted(q.tagStatusesByServer(app.db, tagOption(app, "tag_servers", opts), w, limit), (k) => k ?? app.config.domain),
  tag_languages: (app, w, limit, opts) =>
    counted(q.tagStatusesByLanguage(app.db, tagOption(app, "tag_languages", opts), w, limit), (k) => k ?? "und", (k) => languageName(k ?? "und")),
  instance_accounts: (app, _w, limit, opts) => counted(q.instanceAccountsByFollowers(app.db, domainOption("instance_accounts", opts), limit), (k) => k ?? ""),
  instance_languages: (app, w, limit, opts) =>
    counted(q.instanceStatusesByLanguage(app.db, domainOption("instance_languages", opts), w, limit), (k) => k ?? "und", (k) => languageName(k ?? "und")),
};

export const DIMENSION_KEYS = Object.keys(DIMENSIONS);

/** `limit` as Mastodon's `limit&.to_i`: missing means no limit; zero or less gives nothing. */
export function readDimensions(app: App, actor: Actor, keys: string[], r: DayRange, limit: number | undefined, opts: KeyOptions, ctx: DimensionContext): Dimension[] {
  requireCan(actor, "view_dashboard");
  const w = windowOf(r.first, r.last);
  const lim = limit === undefined ? -1 : Math.max(0, Math.min(limit, 10_000));
  const out: Dimension[] = [];
  for (const key of keys) {
    const fn = Object.hasOwn(DIMENSIONS, key) ? DIMENSIONS[key] : undefined;
    if (!fn) continue;
    const data = fn(app, w, lim, opts, ctx);
    out.push({ key, data: lim >= 0 ? data.slice(0, lim) : data });
  }
  return out;
}

// --- retention

export interface Cohort {
  period: string;
  frequency: "day" | "month";
  data: { date: string; rate: number; value: string }[];
}

const monthStart = (ms: number) => {
  const d = new Date(ms);
  return Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1);
};
const nextMonth = (ms: number) => {
  const d = new Date(ms);
  return Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1);
};

/**
 * Sign-up cohorts per day or month of the range and, for each later bucket of the range, how
 * many of the cohort were active in it or after it (Mastodon counts a user as retained in
 * every bucket up to their latest sign-in; we take their latest activity).
 */
export function readRetention(app: App, actor: Actor, r: DayRange, frequency: string | undefined): Cohort[] {
  requireCan(actor, "view_dashboard");
  const freq: "day" | "month" = frequency === "month" ? "month" : "day";
  const bucket = freq === "day" ? (ms: number) => Math.floor(ms / DAY) * DAY : monthStart;
  const next = freq === "day" ? (ms: number) => ms + DAY : nextMonth;
  const buckets: number[] = [];
  for (let b = bucket(r.first); b <= r.last; b = next(b)) buckets.push(b);
  if (buckets.length > MAX_RETENTION_BUCKETS) throw unprocessable(`Validation failed: more than ${MAX_RETENTION_BUCKETS} periods; ask for fewer days or frequency=month`);
  if (buckets.length === 0) return [];
  const w = windowOf(buckets[0], next(buckets[buckets.length - 1]) - DAY);
  const users = q.signUpsWithLastActivity(app.db, w);
  return buckets.map((cohort, i) => {
    const members = users.filter((u) => bucket(u.createdAt) === cohort);
    const size = Math.max(members.length, 1);
    return {
      period: isoDay(cohort),
      frequency: freq,
      data: buckets.slice(i).map((b) => {
        const n = members.filter((u) => u.lastActiveAt !== null && bucket(u.lastActiveAt) >= b).length;
        return { date: isoDay(b), rate: n / size, value: String(n) };
      }),
    };
  });
}

// --- formatting

const SIZE_UNITS = ["KB", "MB", "GB", "TB", "PB"];

/** Rails' number_to_human_size: powers of 1024, three significant digits, "1 Byte" / "n Bytes". */
export function humanSize(bytes: number): string {
  if (bytes < 1024) return `${bytes} ${bytes === 1 ? "Byte" : "Bytes"}`;
  let v = bytes;
  let i = -1;
  while (v >= 1024 && i < SIZE_UNITS.length - 1) {
    v /= 1024;
    i++;
  }
  return `${Number(v.toPrecision(3))} ${SIZE_UNITS[i]}`;
}

function languageName(code: string): string {
  if (code === "und") return "Unknown";
  try {
    return new Intl.DisplayNames(["en"], { type: "language" }).of(code) ?? code;
  } catch {
    return code;
  }
}
