// https://docs.joinmastodon.org/entities/Admin_IpBlock/ (entities-admin.md).
import { isoTime } from "../lib/iso-time.ts";
import type { IpBlock } from "../storage/ip-blocks.ts";

export interface ApiAdminIpBlock {
  id: string;
  ip: string;
  severity: string;
  comment: string;
  created_at: string;
  expires_at: string | null;
}

export const toApiAdminIpBlock = (b: IpBlock): ApiAdminIpBlock => ({
  id: b.id,
  ip: b.ip,
  severity: b.severity,
  comment: b.comment,
  created_at: isoTime(b.createdAt),
  expires_at: b.expiresAt === null ? null : isoTime(b.expiresAt),
});
