// `backupSchedule` in config.json (ROOST_BACKUP_SCHEDULE): "every 24h, keep 7" takes a backup
// every 24 hours into DATA_DIR/backups and keeps the newest 7 of them; "off" takes none.
// Intervals are written as minutes (m), hours (h) or days (d).

export interface BackupSchedule {
  everyMs: number;
  keep: number;
}

const UNIT_MS = { m: 60_000, h: 3_600_000, d: 86_400_000 } as const;
const MIN_EVERY_MS = 10 * 60_000;
const RE = /^every\s+(\d{1,4})\s*([mhd])\s*(?:,\s*|\s+)keep\s+(\d{1,4})$/i;

/** The parsed schedule, null for "off"; throws a one-line Error for anything else. */
export function parseBackupSchedule(text: string): BackupSchedule | null {
  const t = text.trim();
  if (/^(off|none|never)$/i.test(t)) return null;
  const m = RE.exec(t);
  if (!m) throw new Error(`expected "every <N>m|h|d, keep <K>" or "off"`);
  const everyMs = Number(m[1]) * UNIT_MS[m[2].toLowerCase() as keyof typeof UNIT_MS];
  const keep = Number(m[3]);
  if (everyMs < MIN_EVERY_MS) throw new Error("backups can be at most every 10 minutes");
  if (keep < 1) throw new Error("keep must be at least 1");
  return { everyMs, keep };
}
