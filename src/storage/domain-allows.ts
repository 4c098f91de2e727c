import { type DB, type Row, stmt, str, num } from "../db/db.ts";
import type { Id } from "../lib/ids.ts";
import { rowsPageById } from "./id-pages.ts";
import type { Page } from "./timelines.ts";

/** A domain federation is allowed with in limited-federation mode (Mastodon's DomainAllow). */
export interface DomainAllow {
  id: Id;
  domain: string;
  createdAt: number;
  updatedAt: number;
}

const rowToDomainAllow = (r: Row): DomainAllow => ({ id: str(r.id), domain: r.domain as string, createdAt: num(r.created_at), updatedAt: num(r.updated_at) });

export function insertDomainAllow(db: DB, a: DomainAllow): void {
  stmt(db, "INSERT INTO domain_allows (id, domain, created_at, updated_at) VALUES (@id, @domain, @createdAt, @updatedAt)").run({ ...a, id: BigInt(a.id) });
}

export function findDomainAllowById(db: DB, id: Id): DomainAllow | undefined {
  const r = stmt(db, "SELECT * FROM domain_allows WHERE id = ?").get(BigInt(id)) as Row | undefined;
  return r && rowToDomainAllow(r);
}

export function findDomainAllowByDomain(db: DB, domain: string): DomainAllow | undefined {
  const r = stmt(db, "SELECT * FROM domain_allows WHERE domain = ?").get(domain) as Row | undefined;
  return r && rowToDomainAllow(r);
}

/** The allow covering `domain`: on itself or a parent domain (DomainAllow.rule_for). */
export function isDomainAllowed(db: DB, domain: string): boolean {
  return !!stmt(db, "SELECT 1 FROM domain_allows WHERE domain = @d OR substr(@d, -length(domain) - 1) = '.' || domain LIMIT 1").get({ d: domain.toLowerCase() });
}

export function listDomainAllowsPage(db: DB, page: Page): DomainAllow[] {
  return rowsPageById(db, "domain_allows", page).map(rowToDomainAllow);
}

export function deleteDomainAllow(db: DB, id: Id): void {
  stmt(db, "DELETE FROM domain_allows WHERE id = ?").run(BigInt(id));
}
