import { type DB, type Row, stmt, str, num } from "../db/db.ts";
import type { Id } from "../lib/ids.ts";
import { rowsPageById } from "./id-pages.ts";
import type { Page } from "./timelines.ts";

export const IP_SEVERITIES = ["sign_up_requires_approval", "sign_up_block", "no_access"] as const;
export type IpSeverity = (typeof IP_SEVERITIES)[number];

/** An address range and what it does (Mastodon's IpBlock). */
export interface IpBlock {
  id: Id;
  /** CIDR with host bits cleared. */
  ip: string;
  firstKey: string;
  lastKey: string;
  severity: IpSeverity;
  comment: string;
  expiresAt: number | null;
  createdAt: number;
  updatedAt: number;
}

const rowTo = (r: Row): IpBlock => ({
  id: str(r.id),
  ip: r.ip as string,
  firstKey: r.first_key as string,
  lastKey: r.last_key as string,
  severity: r.severity as IpSeverity,
  comment: r.comment as string,
  expiresAt: r.expires_at === null ? null : num(r.expires_at),
  createdAt: num(r.created_at),
  updatedAt: num(r.updated_at),
});

const params = (b: IpBlock) => ({
  id: BigInt(b.id),
  ip: b.ip,
  first: b.firstKey,
  last: b.lastKey,
  severity: b.severity,
  comment: b.comment,
  expiresAt: b.expiresAt,
  createdAt: b.createdAt,
  updatedAt: b.updatedAt,
});

export function insertIpBlock(db: DB, b: IpBlock): void {
  stmt(
    db,
    `INSERT INTO ip_blocks (id, ip, first_key, last_key, severity, comment, expires_at, created_at, updated_at)
     VALUES (@id, @ip, @first, @last, @severity, @comment, @expiresAt, @createdAt, @updatedAt)`,
  ).run(params(b));
}

/** Writes every field but id and created_at. */
export function updateIpBlock(db: DB, b: IpBlock): void {
  stmt(
    db,
    `UPDATE ip_blocks SET ip = @ip, first_key = @first, last_key = @last, severity = @severity, comment = @comment,
       expires_at = @expiresAt, updated_at = @updatedAt WHERE id = @id`,
  ).run(params(b));
}

export function findIpBlockById(db: DB, id: Id): IpBlock | undefined {
  const r = stmt(db, "SELECT * FROM ip_blocks WHERE id = ?").get(BigInt(id)) as Row | undefined;
  return r && rowTo(r);
}

export function findIpBlockByIp(db: DB, cidr: string): IpBlock | undefined {
  const r = stmt(db, "SELECT * FROM ip_blocks WHERE ip = ?").get(cidr) as Row | undefined;
  return r && rowTo(r);
}

export function listIpBlocksPage(db: DB, page: Page): IpBlock[] {
  return rowsPageById(db, "ip_blocks", page).map(rowTo);
}

/** The blocks in force at `now` whose range holds the address key, the severest first. */
export function ipBlocksCovering(db: DB, key: string, now: number): IpBlock[] {
  return (
    stmt(
      db,
      `SELECT * FROM ip_blocks WHERE first_key <= @key AND last_key >= @key AND (expires_at IS NULL OR expires_at > @now)
       ORDER BY CASE severity WHEN 'no_access' THEN 0 WHEN 'sign_up_block' THEN 1 ELSE 2 END`,
    ).all({ key, now }) as Row[]
  ).map(rowTo);
}

/** The no_access blocks in force at `now` (few: the whole table is small). */
export function noAccessIpBlocks(db: DB, now: number): IpBlock[] {
  return (stmt(db, "SELECT * FROM ip_blocks WHERE severity = 'no_access' AND (expires_at IS NULL OR expires_at > @now)").all({ now }) as Row[]).map(rowTo);
}

/** Changes when any block is added, changed or removed (rows and the latest update). */
export function ipBlocksFingerprint(db: DB): string {
  const r = stmt(db, "SELECT count(*) AS n, max(updated_at) AS u, max(id) AS m FROM ip_blocks").get() as Row;
  return `${r.n}:${r.u}:${r.m}`;
}

export function deleteIpBlock(db: DB, id: Id): void {
  stmt(db, "DELETE FROM ip_blocks WHERE id = ?").run(BigInt(id));
}

/** Removes blocks past their expiry (Mastodon's Scheduler::IpCleanupScheduler); the count. */
export function deleteExpiredIpBlocks(db: DB, now: number): number {
  return stmt(db, "DELETE FROM ip_blocks WHERE expires_at IS NOT NULL AND expires_at <= ?").run(now).changes;
}
