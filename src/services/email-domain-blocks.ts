import type { App } from "../app.ts";
import { emailDomainBlocksFor, insertEmailDomainBlockAttempt } from "../storage/email-domain-blocks.ts";

// What the e-mail domain blocks say about a sign-up (Mastodon's EmailDomainBlock.block? and
// requires_approval?): the address's domain and its parent domains are looked up; an outright
// block wins over allow_with_approval. Each attempt a block meets is counted for its history.
// Not yet: the MX hosts of the domain (Mastodon also checks where the mail is delivered).

export type EmailDomainVerdict = "blocked" | "approval" | null;

export function emailDomainVerdict(app: App, email: string, ip: string | null): EmailDomainVerdict {
  const at = email.lastIndexOf("@");
  if (at === -1) return null;
  const domain = email.slice(at + 1).trim().toLowerCase().replace(/\.$/, "");
  if (domain === "") return null;
  const blocks = emailDomainBlocksFor(app.db, domain);
  if (blocks.length === 0) return null;
  const now = app.now();
  for (const b of blocks) insertEmailDomainBlockAttempt(app.db, b.id, ip, now);
  return blocks.some((b) => !b.allowWithApproval) ? "blocked" : "approval";
}
