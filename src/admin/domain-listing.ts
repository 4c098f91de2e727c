import { isoTime } from "../lib/iso-time.ts";
import type { DomainAllow } from "../storage/domain-allows.ts";
import type { DomainBlock } from "../storage/domain-blocks.ts";

// What `roost domains` prints (the admin API's fields, snake_case, ISO times).

export function domainBlockRow(b: DomainBlock): Record<string, unknown> {
  return {
    id: b.id,
    domain: b.domain,
    severity: b.severity,
    reject_media: b.rejectMedia,
    reject_reports: b.rejectReports,
    obfuscate: b.obfuscate,
    public_comment: b.publicComment,
    private_comment: b.privateComment,
    created_at: isoTime(b.createdAt),
  };
}

export const domainAllowRow = (a: DomainAllow): Record<string, unknown> => ({ id: a.id, domain: a.domain, created_at: isoTime(a.createdAt) });
