import { isoTime } from "../lib/iso-time.ts";
import type { AdminTag } from "../storage/admin-tags.ts";
import { effectiveTagFlags } from "../storage/admin-tags.ts";
import type { CanonicalEmailBlock } from "../storage/canonical-email-blocks.ts";
import type { EmailDomainBlock } from "../storage/email-domain-blocks.ts";
import type { IpBlock } from "../storage/ip-blocks.ts";

// What `roost email-blocks`, `roost ip-blocks` and `roost tags` print (the admin API's
// fields, snake_case, ISO times).

export const emailDomainBlockRow = (b: EmailDomainBlock): Record<string, unknown> => ({
  id: b.id,
  domain: b.domain,
  allow_with_approval: b.allowWithApproval,
  created_at: isoTime(b.createdAt),
});

export const canonicalEmailBlockRow = (b: CanonicalEmailBlock): Record<string, unknown> => ({
  id: b.id,
  canonical_email_hash: b.hash,
  created_at: isoTime(b.createdAt),
});

export const ipBlockRow = (b: IpBlock): Record<string, unknown> => ({
  id: b.id,
  ip: b.ip,
  severity: b.severity,
  comment: b.comment,
  created_at: isoTime(b.createdAt),
  expires_at: b.expiresAt === null ? null : isoTime(b.expiresAt),
});

export const adminTagRow = (t: AdminTag, trendsRequireReview: boolean): Record<string, unknown> => ({
  id: t.id,
  name: t.displayName,
  ...effectiveTagFlags(t, trendsRequireReview),
  requires_review: t.trending && t.reviewedAt === null,
  reviewed_at: t.reviewedAt === null ? null : isoTime(t.reviewedAt),
});
