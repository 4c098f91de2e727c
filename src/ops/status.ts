import Database from "better-sqlite3";
import { existsSync } from "node:fs";
import { type Config } from "../config/config.ts";
import { parseBackupSchedule } from "../config/backup-schedule.ts";
import { type QueueStats, queueStats } from "../jobs/job-store.ts";
import { loadMigrations } from "../db/migrate.ts";
import { probeFfmpeg, type FfmpegInfo } from "../media/ffmpeg-probe.ts";
import { databasePath, mediaPath } from "../services/init.ts";
import { peerFailureCounts } from "../storage/federation-peers.ts";
import { databaseUse } from "../storage/storage-prune.ts";
import { ROOST_VERSION } from "../version.ts";
import { loadPamBinding } from "../services/external-auth/pam.ts";
import { type LiveStatus, queryAdminSocket } from "./admin-socket.ts";
import { type BackupFile, listBackups } from "./backup-archive.ts";
import { directoryUsage, fileBytes, type Usage, usageBySubdirectory } from "./disk-usage.ts";

// `roost status`: what an operator checks first. Read from the data dir (the database opened
// read-only, so it works beside a running server and never migrates) and, for the live
// figures, from the running server's admin socket.

export interface StatusReport {
  version: string;
  dataDir: string;
  domain: string;
  /** The running server (its admin socket), or null when none answers. */
  server: LiveStatus | null;
  database: { bytes: number; walBytes: number; schemaVersion: number; pendingMigrations: string[] };
  /** Files under media/, in all and per folder (avatars, attachments, caches of remote media...). */
  media: Usage & { byFolder: Record<string, Usage> };
  jobs: QueueStats[];
  federation: { peersFailing: number; peersUnavailable: number; worst: { domain: string; failureDays: number; since: number | null }[] };
  backups: { schedule: string; count: number; bytes: number; last: BackupFile | null };
  /**
   * Disk use of the instance's data (the database's pages in use and media; backups apart)
   * against the storage budget, when one is configured (`storageBudgetBytes`, issue 14 part 2).
   */
  storage: { usedBytes: number; budgetBytes: number | null; percentOfBudget: number | null };
  ffmpeg: FfmpegInfo;
  /** PAM sign-in: off, or on and whether its optional binding loads (why not, when it does not). */
  pam: { enabled: boolean; available: boolean | null; reason: string | null };
}

const storageBudget = (config: Config): number | null => (config.storageBudgetBytes > 0 ? config.storageBudgetBytes : null);

async function pamStatus(config: Config): Promise<StatusReport["pam"]> {
  if (!config.pamEnabled) return { enabled: false, available: null, reason: null };
  const r = await loadPamBinding(config.pamBinding);
  return "reason" in r ? { enabled: true, available: false, reason: r.reason } : { enabled: true, available: true, reason: null };
}

export async function collectStatus(config: Config, now = Date.now()): Promise<StatusReport> {
  const dataDir = config.dataDir;
  const dbFile = databasePath(dataDir);
  const server = (await queryAdminSocket(dataDir)) ?? null;
  const db = new Database(dbFile, { readonly: true, fileMustExist: true });
  let schemaVersion = 0;
  let jobs: QueueStats[] = [];
  let peers: ReturnType<typeof peerFailureCounts> = { failing: 0, unavailable: 0, worst: [] };
  let applied = new Set<number>();
  let liveDbBytes = 0;
  try {
    db.pragma("busy_timeout = 5000");
    db.defaultSafeIntegers(true);
    applied = new Set((db.prepare("SELECT version FROM schema_migrations").pluck().all() as bigint[]).map(Number));
    schemaVersion = Math.max(0, ...applied);
    jobs = queueStats(db, now);
    peers = peerFailureCounts(db);
    liveDbBytes = databaseUse(db).liveBytes;
  } finally {
    db.close();
  }
  const media = mediaPath(dataDir);
  const mediaUsage = directoryUsage(media);
  const backups = listBackups(dataDir);
  const dbBytes = fileBytes(dbFile);
  const walBytes = fileBytes(`${dbFile}-wal`);
  // As the pruning job counts it (ops/storage-prune.ts): pages in use, and media.
  const usedBytes = liveDbBytes + mediaUsage.bytes;
  const budgetBytes = storageBudget(config);
  const schedule = parseBackupSchedule(config.backupSchedule);
  return {
    version: ROOST_VERSION,
    dataDir,
    domain: config.domain,
    server,
    database: {
      bytes: dbBytes,
      walBytes,
      schemaVersion,
      pendingMigrations: loadMigrations()
        .filter((m) => !applied.has(m.version))
        .map((m) => `${String(m.version).padStart(4, "0")}_${m.name}`),
    },
    media: { ...mediaUsage, byFolder: existsSync(media) ? usageBySubdirectory(media) : {} },
    jobs,
    federation: { peersFailing: peers.failing, peersUnavailable: peers.unavailable, worst: peers.worst },
    backups: {
      schedule: schedule ? config.backupSchedule : "off",
      count: backups.length,
      bytes: backups.reduce((n, b) => n + b.bytes, 0),
      last: backups[0] ?? null,
    },
    storage: { usedBytes, budgetBytes, percentOfBudget: budgetBytes ? Math.round((usedBytes / budgetBytes) * 1000) / 10 : null },
    ffmpeg: probeFfmpeg(),
    pam: await pamStatus(config),
  };
}
