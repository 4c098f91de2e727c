import type { App } from "../app.ts";
import { emailDomainBlocksFor, insertEmailDomainBlockAttempt } from "../storage/email-domain-blocks.ts";

// What the e-mail domain blocks say about a sign-up (Mastodon's EmailDomainBlock.block? and
// requires_approval?): the address's domain and its parent domains are looked up; an outright
// block wins over allow_with_approval. Each attempt a block meets is counted for its history.
// The domain's MX hosts (services/email-mx.ts) are looked up the same way when given.

export type EmailDomainVerdict = "blocked" | "approval" | null;

/** The domain of an address, lower-cased, or null. */
export function emailDomainOf(email: string): string | null {
  const at = email.lastIndexOf("@");
  if (at === -1) return null;
  const domain = email.slice(at + 1).trim().toLowerCase().replace(/\.$/, "");
  return domain === "" ? null : domain;
}

export function emailDomainVerdict(app: App, email: string, ip: string | null, mxHosts: string[] = []): EmailDomainVerdict {
  const domain = emailDomainOf(email);
  if (!domain) return null;
  const seen = new Set<string>();
  const blocks = [domain, ...mxHosts].flatMap((d) => emailDomainBlocksFor(app.db, d)).filter((b) => !seen.has(b.id) && seen.add(b.id));
  if (blocks.length === 0) return null;
  const now = app.now();
  for (const b of blocks) insertEmailDomainBlockAttempt(app.db, b.id, ip, now);
  return blocks.some((b) => !b.allowWithApproval) ? "blocked" : "approval";
}
