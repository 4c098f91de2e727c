import { type DB, type Row, stmt, str, num } from "../db/db.ts";
import type { Id } from "../lib/ids.ts";

/** A browser login, bound to one access token of the built-in web app. */
export interface WebSession {
  id: Id;
  userId: Id;
  tokenId: Id;
  userAgent: string | null;
  ip: string | null;
  createdAt: number;
  updatedAt: number;
  /** The session's token, sealed (lib/sealed-box.ts); null for sessions older than Web Push. */
  tokenBox: string | null;
}

function rowToWebSession(r: Row): WebSession {
  return {
    id: str(r.id),
    userId: str(r.user_id),
    tokenId: str(r.token_id),
    userAgent: (r.user_agent as string | null) ?? null,
    ip: (r.ip as string | null) ?? null,
    createdAt: num(r.created_at),
    updatedAt: num(r.updated_at),
    tokenBox: (r.token_box as string | null) ?? null,
  };
}

export function insertWebSession(db: DB, s: WebSession & { sessionHash: string }): void {
  stmt(
    db,
    `INSERT INTO web_sessions (id, session_hash, user_id, token_id, user_agent, ip, created_at, updated_at, token_box)
     VALUES (@id, @sessionHash, @userId, @tokenId, @userAgent, @ip, @createdAt, @updatedAt, @tokenBox)`,
  ).run({
    id: BigInt(s.id),
    sessionHash: s.sessionHash,
    userId: BigInt(s.userId),
    tokenId: BigInt(s.tokenId),
    userAgent: s.userAgent,
    ip: s.ip,
    createdAt: s.createdAt,
    updatedAt: s.updatedAt,
    tokenBox: s.tokenBox,
  });
}

export function findWebSessionByHash(db: DB, sessionHash: string): WebSession | undefined {
  const r = stmt(db, "SELECT * FROM web_sessions WHERE session_hash = ?").get(sessionHash) as Row | undefined;
  return r && rowToWebSession(r);
}

export function deleteWebSession(db: DB, id: Id): void {
  stmt(db, "DELETE FROM web_sessions WHERE id = ?").run(BigInt(id));
}

export function touchWebSession(db: DB, id: Id, at: number): void {
  stmt(db, "UPDATE web_sessions SET updated_at = ? WHERE id = ?").run(at, BigInt(id));
}

/** The user's sessions beyond the newest `keep`, oldest last. */
export function listWebSessionsBeyond(db: DB, userId: Id, keep: number): WebSession[] {
  const rows = stmt(
    db,
    "SELECT * FROM web_sessions WHERE user_id = ? ORDER BY created_at DESC, id DESC LIMIT -1 OFFSET ?",
  ).all(BigInt(userId), keep) as Row[];
  return rows.map(rowToWebSession);
}

export function countWebSessions(db: DB, userId: Id): number {
  return num((stmt(db, "SELECT count(*) AS n FROM web_sessions WHERE user_id = ?").get(BigInt(userId)) as Row).n);
}

export function deleteWebSessionsOfToken(db: DB, tokenId: Id): void {
  stmt(db, "DELETE FROM web_sessions WHERE token_id = ?").run(BigInt(tokenId));
}

/** The user's sessions, most recently active first. */
export function listWebSessionsOfUser(db: DB, userId: Id): WebSession[] {
  const rows = stmt(db, "SELECT * FROM web_sessions WHERE user_id = ? ORDER BY updated_at DESC, id DESC").all(BigInt(userId)) as Row[];
  return rows.map(rowToWebSession);
}

export function findWebSessionOfUser(db: DB, userId: Id, id: Id): WebSession | undefined {
  const r = stmt(db, "SELECT * FROM web_sessions WHERE id = ? AND user_id = ?").get(BigInt(id), BigInt(userId)) as Row | undefined;
  return r && rowToWebSession(r);
}

/** Last activity and address of a session (written at most once a minute, see services/web-sessions.ts). */
export function touchWebSessionActivity(db: DB, id: Id, at: number, ip: string | null): void {
  stmt(db, "UPDATE web_sessions SET updated_at = ?, ip = coalesce(?, ip) WHERE id = ?").run(at, ip, BigInt(id));
}
