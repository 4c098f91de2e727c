// https://docs.joinmastodon.org/entities/Admin_CanonicalEmailBlock/ (entities-admin.md).
import type { CanonicalEmailBlock } from "../storage/canonical-email-blocks.ts";

export interface ApiAdminCanonicalEmailBlock {
  id: string;
  canonical_email_hash: string;
}

export const toApiAdminCanonicalEmailBlock = (b: CanonicalEmailBlock): ApiAdminCanonicalEmailBlock => ({ id: b.id, canonical_email_hash: b.hash });
