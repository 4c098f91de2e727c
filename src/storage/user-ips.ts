import { type DB, type Row, idListJson, stmt, num } from "../db/db.ts";
import type { Id } from "../lib/ids.ts";
import { ipKey } from "../lib/ip-keys.ts";

// Addresses users signed up and signed in from (Mastodon's user_ips; migration 0031).

/** Records a use of `ip` by the user (the newest time wins); ignores what is not an address. */
export function recordUserIp(db: DB, userId: Id, ip: string | null | undefined, at: number): void {
  if (!ip) return;
  const bare = ip.startsWith("::ffff:") && ip.includes(".") ? ip.slice(7) : ip;
  const key = ipKey(bare);
  if (!key) return;
  stmt(
    db,
    `INSERT INTO user_ips (user_id, ip, ip_key, used_at) VALUES (?, ?, ?, ?)
     ON CONFLICT (user_id, ip) DO UPDATE SET used_at = max(used_at, excluded.used_at)`,
  ).run(BigInt(userId), bare, key, at);
}

/** Each user's addresses, newest use first (Admin::Account.ips). */
export function listUserIps(db: DB, userIds: Id[]): Map<Id, { ip: string; usedAt: number }[]> {
  const out = new Map<Id, { ip: string; usedAt: number }[]>();
  if (userIds.length === 0) return out;
  const rows = stmt(
    db,
    "SELECT user_id, ip, used_at FROM user_ips WHERE user_id IN (SELECT value FROM json_each(?)) ORDER BY used_at DESC",
  ).all(idListJson(userIds)) as Row[];
  for (const r of rows) {
    const id = String(r.user_id);
    let list = out.get(id);
    if (!list) out.set(id, (list = []));
    list.push({ ip: r.ip as string, usedAt: num(r.used_at) });
  }
  return out;
}
