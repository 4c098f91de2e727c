import type { App } from "../app.ts";
import { unprocessable } from "../errors.ts";
import type { Id } from "../lib/ids.ts";
import type { Account } from "../storage/accounts.ts";
import {
  deleteAccountDomainBlock,
  deleteNotificationsFromDomain,
  insertAccountDomainBlock,
  listAccountDomainBlocksPage,
} from "../storage/account-domain-blocks.ts";
import { listFollowRequestsFromDomain, listFollowRequestsToDomain } from "../storage/follow-requests.ts";
import { countFollowsWithDomain, findFollowsWithDomain } from "../storage/follows.ts";
import type { KeysetPage } from "../storage/relationship-pages.ts";
import { normalizeDomain } from "./domain-blocks.ts";
import { clearFeeds, endFollow, endFollowRequest } from "./follows.ts";
import { inTx } from "../db/db.ts";

// A user's own domain blocks (Mastodon's Account#block_domain! and AfterBlockDomainFromAccountService).

/**
 * `host[:port]` as remote accounts' domains are stored (lower-case ASCII; the port is kept, so
 * `127.0.0.1:4002` is the server whose handles read `@bob@127.0.0.1:4002`), or undefined when
 * it is not one. Mastodon accepts a bare host only; roost federates with servers on a port.
 */
function normalizeBlockedDomain(input: string): string | undefined {
  const m = /^(.*?)(?::(\d{1,5}))?$/.exec(input.trim());
  if (!m) return undefined;
  const host = normalizeDomain(m[1]);
  if (!host) return undefined;
  if (m[2] === undefined) return host;
  const port = Number(m[2]);
  return port >= 1 && port <= 65535 ? `${host}:${port}` : undefined;
}

/** The `domain` param, normalised; 422 when blank or not a host name with an optional port. */
export function requireDomainParam(raw: string | undefined): string {
  if (raw === undefined || raw.trim() === "") throw unprocessable("Validation failed: Domain can't be blank");
  const domain = normalizeBlockedDomain(raw);
  if (!domain) throw unprocessable("Validation failed: Domain is not a valid domain name");
  return domain;
}

/**
 * POST /api/v1/domain_blocks. Idempotent. Cuts the follows with that domain both ways, drops
 * pending requests either way and clears its notifications; its content is filtered at read time
 * (relationship-checks). Mastodon's severed_relationships notification is not made yet.
 */
export function blockDomain(app: App, owner: Account, domain: string): void {
  const unfollowed = inTx(app.db, () => {
    insertAccountDomainBlock(app.db, { id: app.ids.next(), accountId: owner.id, domain, createdAt: app.now() });
    const { outgoing, incoming } = findFollowsWithDomain(app.db, owner.id, domain);
    for (const f of [...outgoing, ...incoming]) endFollow(app, f);
    for (const r of listFollowRequestsFromDomain(app.db, owner.id, domain)) endFollowRequest(app, r);
    for (const r of listFollowRequestsToDomain(app.db, owner.id, domain)) endFollowRequest(app, r);
    deleteNotificationsFromDomain(app.db, owner.id, domain);
    return outgoing.map((f) => f.targetAccountId);
  });
  for (const id of unfollowed) clearFeeds(app, owner, id);
}

/** DELETE /api/v1/domain_blocks. Idempotent; an invalid domain simply matches nothing. */
export function unblockDomain(app: App, owner: Account, raw: string | undefined): void {
  const domain = raw ? normalizeBlockedDomain(raw) : undefined;
  if (domain) deleteAccountDomainBlock(app.db, owner.id, domain);
}

export function listDomainBlocks(app: App, owner: Account, page: KeysetPage): { cursor: Id; domain: string }[] {
  return listAccountDomainBlocksPage(app.db, owner.id, page);
}

/** GET /api/v1/domain_blocks/preview: the follows a block of `domain` would sever. */
export function previewDomainBlock(app: App, owner: Account, domain: string): { following_count: number; followers_count: number } {
  const c = countFollowsWithDomain(app.db, owner.id, domain);
  return { following_count: c.following, followers_count: c.followers };
}
