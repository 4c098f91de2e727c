// https://docs.joinmastodon.org/entities/Admin_DomainBlock/ and Admin_DomainAllow/
// (entities-admin.md): what the admin API shows of the federation lists.
import { sha256Hex } from "../lib/crypto.ts";
import { isoTime } from "../lib/iso-time.ts";
import type { DomainAllow } from "../storage/domain-allows.ts";
import type { DomainBlock } from "../storage/domain-blocks.ts";

export interface ApiAdminDomainBlock {
  id: string;
  domain: string;
  digest: string;
  created_at: string;
  severity: DomainBlock["severity"];
  reject_media: boolean;
  reject_reports: boolean;
  private_comment: string | null;
  public_comment: string | null;
  obfuscate: boolean;
}

export function toApiAdminDomainBlock(b: DomainBlock): ApiAdminDomainBlock {
  return {
    id: b.id,
    domain: b.domain,
    digest: sha256Hex(b.domain),
    created_at: isoTime(b.createdAt),
    severity: b.severity,
    reject_media: b.rejectMedia,
    reject_reports: b.rejectReports,
    private_comment: b.privateComment,
    public_comment: b.publicComment,
    obfuscate: b.obfuscate,
  };
}

export function toApiAdminDomainAllow(a: DomainAllow): { id: string; domain: string; created_at: string } {
  return { id: a.id, domain: a.domain, created_at: isoTime(a.createdAt) };
}
