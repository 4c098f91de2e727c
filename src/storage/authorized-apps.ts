import { type DB, type Row, stmt, str, num } from "../db/db.ts";
import type { Id } from "../lib/ids.ts";

/** An application holding live tokens of a user (Mastodon's settings/applications list). */
export interface AuthorizedApp {
  applicationId: Id;
  name: string;
  website: string | null;
  /** The union of the scopes of its live tokens. */
  scopes: string[];
  tokens: number;
  firstAuthorizedAt: number;
  lastUsedAt: number | null;
}

const LIVE = "t.revoked_at IS NULL AND (t.expires_at IS NULL OR t.expires_at > @now)";

/** Apps with the user's live tokens, the built-in web app aside (its tokens are the sessions). */
export function listAuthorizedApps(db: DB, userId: Id, now: number, excludeAppId: Id | null): AuthorizedApp[] {
  const rows = stmt(
    db,
    `SELECT a.id, a.name, a.website, group_concat(t.scopes, ' ') AS scopes, count(*) AS n,
            min(t.created_at) AS first_at, max(t.last_used_at) AS last_used
       FROM oauth_tokens t JOIN oauth_applications a ON a.id = t.application_id
      WHERE t.user_id = @userId AND ${LIVE} AND a.id IS NOT @exclude
      GROUP BY a.id ORDER BY first_at DESC, a.id DESC`,
  ).all({ userId: BigInt(userId), now, exclude: excludeAppId === null ? null : BigInt(excludeAppId) }) as Row[];
  return rows.map((r) => ({
    applicationId: str(r.id),
    name: String(r.name),
    website: (r.website as string | null) || null,
    scopes: [...new Set(String(r.scopes).split(" ").filter(Boolean))].sort(),
    tokens: num(r.n),
    firstAuthorizedAt: num(r.first_at),
    lastUsedAt: r.last_used === null ? null : num(r.last_used),
  }));
}

/** The ids of the user's live tokens of one application. */
export function liveTokenIdsOfUserApp(db: DB, userId: Id, applicationId: Id, now: number): Id[] {
  const rows = stmt(db, `SELECT t.id FROM oauth_tokens t WHERE t.user_id = @userId AND t.application_id = @appId AND ${LIVE}`).all({
    userId: BigInt(userId),
    appId: BigInt(applicationId),
    now,
  }) as Row[];
  return rows.map((r) => str(r.id));
}
