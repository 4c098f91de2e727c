import { type DB, type Row, stmt } from "../db/db.ts";

// Every file name the database refers to, across the tables that keep media (for
// `roost media migrate`). Companion files that are derived from a name (an animated avatar's
// still, a local emoji's static PNG) are added by the caller, which knows those rules.

export interface StoredMediaRef {
  file: string;
  contentType: string | null;
  /** A local emoji (its static PNG sits beside it). */
  emoji: boolean;
}

export function listStoredMediaRefs(db: DB): StoredMediaRef[] {
  const rows = stmt(
    db,
    `SELECT file, content_type, 0 AS emoji FROM media_attachments WHERE file IS NOT NULL
     UNION ALL SELECT small_file, NULL, 0 FROM media_attachments WHERE small_file IS NOT NULL
     UNION ALL SELECT thumbnail_file, NULL, 0 FROM media_attachments WHERE thumbnail_file IS NOT NULL
     UNION ALL SELECT avatar_file, avatar_content_type, 0 FROM accounts WHERE avatar_file IS NOT NULL
     UNION ALL SELECT header_file, header_content_type, 0 FROM accounts WHERE header_file IS NOT NULL
     UNION ALL SELECT file, content_type, domain IS NULL FROM custom_emojis WHERE file IS NOT NULL`,
  ).all() as Row[];
  return rows.map((r) => ({ file: r.file as string, contentType: (r.content_type as string | null) ?? null, emoji: Number(r.emoji) === 1 }));
}
