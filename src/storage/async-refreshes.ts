import { type DB, type Row, stmt, str } from "../db/db.ts";

// Background refreshes (migrations/0045_async_refreshes.sql): one row per refreshed key.

/** A finished refresh can still be polled this long (Mastodon keeps it an hour). */
export const FINISHED_REFRESH_TTL_MS = 3600_000;

export interface AsyncRefresh {
  id: string;
  key: string;
  status: "running" | "finished";
  resultCount: number | null;
  createdAt: number;
  finishedAt: number | null;
}

function rowToAsyncRefresh(r: Row): AsyncRefresh {
  return {
    id: str(r.id),
    key: str(r.key),
    status: r.status === "running" ? "running" : "finished",
    resultCount: r.result_count === null ? null : Number(r.result_count),
    createdAt: Number(r.created_at),
    finishedAt: r.finished_at === null ? null : Number(r.finished_at),
  };
}

export function findAsyncRefreshByKey(db: DB, key: string): AsyncRefresh | undefined {
  const r = stmt(db, "SELECT * FROM async_refreshes WHERE key = @key").get({ key }) as Row | undefined;
  return r ? rowToAsyncRefresh(r) : undefined;
}

export function findAsyncRefreshById(db: DB, id: string): AsyncRefresh | undefined {
  const r = stmt(db, "SELECT * FROM async_refreshes WHERE id = @id").get({ id }) as Row | undefined;
  return r ? rowToAsyncRefresh(r) : undefined;
}

/** Starts (or restarts) the refresh of `key` under a new id. */
export function startAsyncRefresh(db: DB, r: { id: string; key: string; countResults: boolean; at: number }): AsyncRefresh {
  const row = stmt(
    db,
    `INSERT INTO async_refreshes (id, key, status, result_count, created_at, finished_at)
     VALUES (@id, @key, 'running', @count, @at, NULL)
     ON CONFLICT (key) DO UPDATE SET id = excluded.id, status = 'running', result_count = excluded.result_count,
       created_at = excluded.created_at, finished_at = NULL
     RETURNING *`,
  ).get({ id: r.id, key: r.key, count: r.countResults ? 0 : null, at: r.at }) as Row;
  return rowToAsyncRefresh(row);
}

export function addAsyncRefreshResults(db: DB, id: string, n: number): void {
  stmt(db, "UPDATE async_refreshes SET result_count = coalesce(result_count, 0) + @n WHERE id = @id").run({ id, n });
}

export function finishAsyncRefresh(db: DB, id: string, at: number): void {
  stmt(db, "UPDATE async_refreshes SET status = 'finished', finished_at = @at WHERE id = @id").run({ id, at });
}

/** Forgets refreshes finished (or started, if never finished) before `before`. */
export function deleteAsyncRefreshesBefore(db: DB, before: number): number {
  return stmt(db, "DELETE FROM async_refreshes WHERE coalesce(finished_at, created_at) < @before").run({ before }).changes;
}
