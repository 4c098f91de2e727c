import { type DB, type Row, num, stmt, str } from "../db/db.ts";
import type { Id } from "../lib/ids.ts";

// Counts behind POST /api/v1/admin/measures, /dimensions and /retention (admin/metrics.ts).
// Every per-day query answers [day (UTC midnight, ms), count] rows over [from, to) in one pass;
// days with nothing are filled in by the caller. Statuses are found from the first id of the
// window (snowflakes carry their time, as in Mastodon's queries), so the primary key does the
// range work, and counted by created_at (a boost or a reply may get an id later than its time).

export type DayCounts = Map<number, number>;

/** Time window: [from, to) in ms, and the first status id of `from`. */
export type Window = {
  from: number;
  to: number;
  fromId: bigint;
};

const DAY_OF = (col: string) => `(${col} / 86400000) * 86400000`;

function dayCounts(db: DB, sql: string, params: Record<string, unknown>): DayCounts {
  const out: DayCounts = new Map();
  for (const r of stmt(db, sql).all(params) as Row[]) out.set(num(r.day), num(r.n));
  return out;
}

const one = (db: DB, sql: string, params: Record<string, unknown>): number => num((stmt(db, sql).get(params) as Row).n);

// --- active users (user_activity_days: one row per user per UTC day with an authenticated request)

export function activeUsersByDay(db: DB, w: Window): DayCounts {
  return dayCounts(db, "SELECT day, count(*) AS n FROM user_activity_days WHERE day >= @from AND day < @to GROUP BY day", w);
}

export function activeUsersIn(db: DB, w: Window): number {
  return one(db, "SELECT count(DISTINCT user_id) AS n FROM user_activity_days WHERE day >= @from AND day < @to", w);
}

// --- sign-ups

export function newUsersByDay(db: DB, w: Window): DayCounts {
  return dayCounts(db, `SELECT ${DAY_OF("created_at")} AS day, count(*) AS n FROM users WHERE created_at >= @from AND created_at < @to GROUP BY 1`, w);
}

export function newUsersIn(db: DB, w: Window): number {
  return one(db, "SELECT count(*) AS n FROM users WHERE created_at >= @from AND created_at < @to", w);
}

// --- interactions: what Mastodon's activity:interactions counter counts, from the rows it leaves:
// favourites, boosts, replies to someone else, follows and poll votes by local accounts.

const INTERACTIONS = `
  SELECT f.created_at AS t FROM favourites f JOIN accounts a ON a.id = f.account_id
   WHERE f.id >= @fromId AND a.domain IS NULL AND f.created_at >= @from AND f.created_at < @to
  UNION ALL
  SELECT s.created_at FROM statuses s
   WHERE s.local = 1 AND s.id >= @fromId AND s.created_at >= @from AND s.created_at < @to AND s.deleted_at IS NULL
     AND (s.reblog_of_id IS NOT NULL OR (s.in_reply_to_account_id IS NOT NULL AND s.in_reply_to_account_id <> s.account_id))
  UNION ALL
  SELECT f.created_at FROM follows f JOIN accounts a ON a.id = f.account_id
   WHERE a.domain IS NULL AND f.created_at >= @from AND f.created_at < @to
  UNION ALL
  SELECT v.created_at FROM poll_votes v JOIN accounts a ON a.id = v.account_id
   WHERE v.id >= @fromId AND a.domain IS NULL AND v.created_at >= @from AND v.created_at < @to`;

export function interactionsByDay(db: DB, w: Window): DayCounts {
  return dayCounts(db, `SELECT ${DAY_OF("t")} AS day, count(*) AS n FROM (${INTERACTIONS}) GROUP BY 1`, w);
}

// --- posts written here (the dashboard's posts per day; boosts apart)

export function localPostsByDay(db: DB, w: Window): DayCounts {
  return dayCounts(
    db,
    `SELECT ${DAY_OF("s.created_at")} AS day, count(*) AS n FROM statuses s
     WHERE s.local = 1 AND s.id >= @fromId AND s.created_at >= @from AND s.created_at < @to AND s.reblog_of_id IS NULL AND s.deleted_at IS NULL GROUP BY 1`,
    w,
  );
}

// --- reports

export function openedReportsByDay(db: DB, w: Window): DayCounts {
  return dayCounts(db, `SELECT ${DAY_OF("created_at")} AS day, count(*) AS n FROM reports WHERE created_at >= @from AND created_at < @to GROUP BY 1`, w);
}

export function resolvedReportsByDay(db: DB, w: Window): DayCounts {
  return dayCounts(
    db,
    `SELECT ${DAY_OF("action_taken_at")} AS day, count(*) AS n FROM reports WHERE action_taken_at >= @from AND action_taken_at < @to GROUP BY 1`,
    w,
  );
}

// --- tags (tag_days / tag_day_accounts: the tag's history, as Mastodon's Redis keeps it)

export function tagExists(db: DB, tagId: Id): boolean {
  return stmt(db, "SELECT 1 FROM tags WHERE id = ?").get(BigInt(tagId)) !== undefined;
}

export function tagUsesByDay(db: DB, tagId: Id, w: Window): DayCounts {
  return dayCounts(db, "SELECT day, uses AS n FROM tag_days WHERE tag_id = @tagId AND day >= @from AND day < @to", { ...w, tagId: BigInt(tagId) });
}

export function tagAccountsByDay(db: DB, tagId: Id, w: Window): DayCounts {
  return dayCounts(db, "SELECT day, accounts AS n FROM tag_days WHERE tag_id = @tagId AND day >= @from AND day < @to", { ...w, tagId: BigInt(tagId) });
}

export function tagAccountsIn(db: DB, tagId: Id, w: Window): number {
  return one(db, "SELECT count(DISTINCT account_id) AS n FROM tag_day_accounts WHERE tag_id = @tagId AND day >= @from AND day < @to", {
    ...w,
    tagId: BigInt(tagId),
  });
}

const TAGGED = `FROM statuses s JOIN statuses_tags st ON st.status_id = s.id JOIN accounts a ON a.id = s.account_id
  WHERE st.tag_id = @tagId AND s.id >= @fromId AND s.created_at >= @from AND s.created_at < @to AND s.deleted_at IS NULL`;

/** Distinct remote servers posting with the tag per day (local posts have no domain: not counted, as in Mastodon). */
export function tagServersByDay(db: DB, tagId: Id, w: Window): DayCounts {
  return dayCounts(db, `SELECT ${DAY_OF("s.created_at")} AS day, count(DISTINCT a.domain) AS n ${TAGGED} GROUP BY 1`, { ...w, tagId: BigInt(tagId) });
}

export function tagServersIn(db: DB, tagId: Id, w: Window): number {
  return one(db, `SELECT count(DISTINCT a.domain) AS n ${TAGGED}`, { ...w, tagId: BigInt(tagId) });
}

// --- one remote server (instance_* measures): totals of all time, new rows per day

export function instanceAccounts(db: DB, domain: string, w: Window): { total: number; days: DayCounts } {
  const p = { ...w, domain };
  return {
    total: one(db, "SELECT count(*) AS n FROM accounts WHERE domain = @domain", p),
    days: dayCounts(db, `SELECT ${DAY_OF("created_at")} AS day, count(*) AS n FROM accounts WHERE domain = @domain AND created_at >= @from AND created_at < @to GROUP BY 1`, p),
  };
}

export function instanceStatuses(db: DB, domain: string, w: Window): { total: number; days: DayCounts } {
  const p = { ...w, domain };
  const from = "FROM statuses s JOIN accounts a ON a.id = s.account_id WHERE a.domain = @domain AND s.deleted_at IS NULL";
  return {
    total: one(db, `SELECT count(*) AS n ${from}`, p),
    days: dayCounts(db, `SELECT ${DAY_OF("s.created_at")} AS day, count(*) AS n ${from} AND s.id >= @fromId AND s.created_at >= @from AND s.created_at < @to GROUP BY 1`, p),
  };
}

/** Bytes of the domain's media that we hold (our copies; the original and the thumbnail). */
export function instanceMedia(db: DB, domain: string, w: Window): { total: number; days: DayCounts } {
  const p = { ...w, domain };
  const from = "FROM media_attachments m JOIN accounts a ON a.id = m.account_id WHERE a.domain = @domain";
  const size = "coalesce(sum(coalesce(m.file_size, 0)), 0)";
  return {
    total: one(db, `SELECT ${size} AS n ${from}`, p),
    days: dayCounts(db, `SELECT ${DAY_OF("m.created_at")} AS day, ${size} AS n ${from} AND m.created_at >= @from AND m.created_at < @to GROUP BY 1`, p),
  };
}

export function instanceReports(db: DB, domain: string, w: Window): { total: number; days: DayCounts } {
  const p = { ...w, domain };
  const from = "FROM reports r JOIN accounts a ON a.id = r.target_account_id WHERE a.domain = @domain";
  return {
    total: one(db, `SELECT count(*) AS n ${from}`, p),
    days: dayCounts(db, `SELECT ${DAY_OF("r.created_at")} AS day, count(*) AS n ${from} AND r.created_at >= @from AND r.created_at < @to GROUP BY 1`, p),
  };
}

/** Follows of the domain's accounts (by anyone we know of: in practice, our users). */
export function instanceFollows(db: DB, domain: string, w: Window): { total: number; days: DayCounts } {
  return followsOn(db, "target_account_id", domain, w);
}

/** Follows by the domain's accounts. */
export function instanceFollowers(db: DB, domain: string, w: Window): { total: number; days: DayCounts } {
  return followsOn(db, "account_id", domain, w);
}

function followsOn(db: DB, side: "account_id" | "target_account_id", domain: string, w: Window): { total: number; days: DayCounts } {
  const p = { ...w, domain };
  const from = `FROM follows f JOIN accounts a ON a.id = f.${side} WHERE a.domain = @domain`;
  return {
    total: one(db, `SELECT count(*) AS n ${from}`, p),
    days: dayCounts(db, `SELECT ${DAY_OF("f.created_at")} AS day, count(*) AS n ${from} AND f.created_at >= @from AND f.created_at < @to GROUP BY 1`, p),
  };
}

// --- dimensions: [key, count] rows, largest first

export interface KeyCount {
  key: string | null;
  n: number;
}

function keyCounts(db: DB, sql: string, params: Record<string, unknown>): KeyCount[] {
  return (stmt(db, sql).all(params) as Row[]).map((r) => ({ key: r.k === null ? null : str(r.k), n: num(r.n) }));
}

/** Locales of the users who signed in during the window. */
export function localesOfActiveUsers(db: DB, w: Window, limit: number): KeyCount[] {
  return keyCounts(
    db,
    `SELECT locale AS k, count(*) AS n FROM users WHERE current_sign_in_at >= @from AND current_sign_in_at < @to AND locale IS NOT NULL
     GROUP BY locale ORDER BY n DESC, k LIMIT @limit`,
    { ...w, limit },
  );
}

/** The apps sign-ups came through (null: the web sign-up form). */
export function signUpSources(db: DB, w: Window, limit: number): KeyCount[] {
  return keyCounts(
    db,
    `SELECT o.name AS k, count(*) AS n FROM users u LEFT JOIN oauth_applications o ON o.id = u.created_by_app_id
     WHERE u.created_at >= @from AND u.created_at < @to GROUP BY o.name ORDER BY n DESC, k LIMIT @limit`,
    { ...w, limit },
  );
}

/** Posts per server (null: this one). */
export function statusesByServer(db: DB, w: Window, limit: number): KeyCount[] {
  return keyCounts(
    db,
    `SELECT a.domain AS k, count(*) AS n FROM statuses s JOIN accounts a ON a.id = s.account_id
     WHERE s.id >= @fromId AND s.created_at >= @from AND s.created_at < @to AND s.deleted_at IS NULL GROUP BY a.domain ORDER BY n DESC, k LIMIT @limit`,
    { ...w, limit },
  );
}

export function tagStatusesByServer(db: DB, tagId: Id, w: Window, limit: number): KeyCount[] {
  return keyCounts(db, `SELECT a.domain AS k, count(*) AS n ${TAGGED} GROUP BY a.domain ORDER BY n DESC, k LIMIT @limit`, { ...w, tagId: BigInt(tagId), limit });
}

export function tagStatusesByLanguage(db: DB, tagId: Id, w: Window, limit: number): KeyCount[] {
  return keyCounts(
    db,
    `SELECT coalesce(s.language, 'und') AS k, count(*) AS n ${TAGGED} AND s.reblog_of_id IS NULL GROUP BY 1 ORDER BY n DESC, k LIMIT @limit`,
    { ...w, tagId: BigInt(tagId), limit },
  );
}

/** The domain's accounts by how many follow them. */
export function instanceAccountsByFollowers(db: DB, domain: string, limit: number): KeyCount[] {
  return keyCounts(
    db,
    `SELECT a.username AS k, (SELECT count(*) FROM follows f WHERE f.target_account_id = a.id) AS n
     FROM accounts a WHERE a.domain = @domain ORDER BY n DESC, a.id LIMIT @limit`,
    { domain, limit },
  );
}

export function instanceStatusesByLanguage(db: DB, domain: string, w: Window, limit: number): KeyCount[] {
  return keyCounts(
    db,
    `SELECT coalesce(s.language, 'und') AS k, count(*) AS n FROM statuses s JOIN accounts a ON a.id = s.account_id
     WHERE a.domain = @domain AND s.id >= @fromId AND s.created_at >= @from AND s.created_at < @to AND s.reblog_of_id IS NULL AND s.deleted_at IS NULL
     GROUP BY 1 ORDER BY n DESC, k LIMIT @limit`,
    { ...w, domain, limit },
  );
}

// --- retention

export interface SignUpActivity {
  createdAt: number;
  /** The user's latest activity: the last day with an authenticated request, or sign-in. */
  lastActiveAt: number | null;
}

/** Users who signed up in the window, with when they were last active. */
export function signUpsWithLastActivity(db: DB, w: Window): SignUpActivity[] {
  return (
    stmt(
      db,
      `SELECT u.created_at AS c, max(coalesce((SELECT max(d.day) FROM user_activity_days d WHERE d.user_id = u.id), 0), coalesce(u.current_sign_in_at, 0)) AS l
       FROM users u WHERE u.created_at >= @from AND u.created_at < @to`,
    ).all(w) as Row[]
  ).map((r) => ({ createdAt: num(r.c), lastActiveAt: num(r.l) || null }));
}

export function sqliteVersion(db: DB): string {
  return str((stmt(db, "SELECT sqlite_version() AS v").get() as Row).v);
}
