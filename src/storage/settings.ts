import { type DB, type Row, stmt } from "../db/db.ts";

// Runtime-editable instance settings (extended description, terms, ...): key → JSON value.

/** The stored value of `key`, or undefined when unset or unreadable. */
export function getSetting<T = unknown>(db: DB, key: string): T | undefined {
  const r = stmt(db, "SELECT value FROM settings WHERE key = ?").get(key) as Row | undefined;
  if (!r) return undefined;
  try {
    return JSON.parse(r.value as string) as T;
  } catch {
    return undefined;
  }
}

export function setSetting(db: DB, key: string, value: unknown): void {
  stmt(db, "INSERT INTO settings (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value").run(
    key,
    JSON.stringify(value),
  );
}

export function deleteSetting(db: DB, key: string): void {
  stmt(db, "DELETE FROM settings WHERE key = ?").run(key);
}
