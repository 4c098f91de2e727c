import { type DB, type Row, stmt, str, strOrNull, num, bool } from "../db/db.ts";
import type { Id } from "../lib/ids.ts";

export interface Application {
  id: Id;
  name: string;
  website: string | null;
  redirectUris: string[];
  scopes: string[];
  clientId: string;
  clientSecretHash: string;
  superapp: boolean;
  ownerUserId: Id | null;
  createdAt: number;
}

export function rowToApplication(r: Row): Application {
  return {
    id: str(r.id),
    name: r.name as string,
    website: (r.website as string | null) ?? null,
    redirectUris: String(r.redirect_uris).split("\n").filter(Boolean),
    scopes: String(r.scopes).split(" ").filter(Boolean),
    clientId: r.client_id as string,
    clientSecretHash: r.client_secret_hash as string,
    superapp: bool(r.superapp),
    ownerUserId: strOrNull(r.owner_user_id),
    createdAt: num(r.created_at),
  };
}

export function insertApplication(db: DB, a: Application): void {
  stmt(
    db,
    `INSERT INTO oauth_applications (id, name, website, redirect_uris, scopes, client_id, client_secret_hash,
       superapp, owner_user_id, created_at)
     VALUES (@id, @name, @website, @redirectUris, @scopes, @clientId, @clientSecretHash, @superapp, @ownerUserId, @createdAt)`,
  ).run({
    id: BigInt(a.id),
    name: a.name,
    website: a.website,
    redirectUris: a.redirectUris.join("\n"),
    scopes: a.scopes.join(" "),
    clientId: a.clientId,
    clientSecretHash: a.clientSecretHash,
    superapp: a.superapp ? 1 : 0,
    ownerUserId: a.ownerUserId ? BigInt(a.ownerUserId) : null,
    createdAt: a.createdAt,
  });
}

export function findApplicationById(db: DB, id: Id): Application | undefined {
  const r = stmt(db, "SELECT * FROM oauth_applications WHERE id = ?").get(BigInt(id)) as Row | undefined;
  return r && rowToApplication(r);
}

export function findApplicationByClientId(db: DB, clientId: string): Application | undefined {
  const r = stmt(db, "SELECT * FROM oauth_applications WHERE client_id = ?").get(clientId) as Row | undefined;
  return r && rowToApplication(r);
}

/** Built-in apps (the web "superapp", the CLI) are found by name among superapps. */
export function findSuperappByName(db: DB, name: string): Application | undefined {
  const r = stmt(db, "SELECT * FROM oauth_applications WHERE superapp = 1 AND name = ? ORDER BY id LIMIT 1").get(name) as
    | Row
    | undefined;
  return r && rowToApplication(r);
}
