// https://docs.joinmastodon.org/entities/Admin_EmailDomainBlock/ (entities-admin.md): with the
// last 7 days of sign-up attempts the block met, newest first, figures as strings.
import type { App } from "../app.ts";
import { isoTime } from "../lib/iso-time.ts";
import { type EmailDomainBlock, emailDomainBlockAttempts } from "../storage/email-domain-blocks.ts";

const DAY = 86_400_000;

export interface ApiAdminEmailDomainBlock {
  id: string;
  domain: string;
  created_at: string;
  history: { day: string; accounts: string; uses: string }[];
  allow_with_approval: boolean;
}

export function toApiAdminEmailDomainBlocks(app: App, blocks: EmailDomainBlock[]): ApiAdminEmailDomainBlock[] {
  const today = Math.floor(app.now() / DAY);
  const attempts = emailDomainBlockAttempts(app.db, blocks.map((b) => b.id), today - 6);
  return blocks.map((b) => ({
    id: b.id,
    domain: b.domain,
    created_at: isoTime(b.createdAt),
    history: Array.from({ length: 7 }, (_, i) => {
      const day = today - i;
      const n = attempts.get(b.id)?.get(day);
      return { day: String((day * DAY) / 1000), accounts: String(n?.accounts ?? 0), uses: String(n?.uses ?? 0) };
    }),
    allow_with_approval: b.allowWithApproval,
  }));
}
