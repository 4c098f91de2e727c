import { readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { queryAdminSocket } from "../../src/ops/admin-socket.ts";

/**
 * Where a server's resident memory is, in MB: what V8 reports (JS heap, Buffers and other
 * external memory) through the admin socket, and what the kernel sees (/proc/PID/smaps):
 * glibc's main arena ([heap]), other anonymous mappings (V8's heap pages, thread arenas,
 * large mallocs) and file-backed pages (code, the SQLite file when mapped). An RSS drift can
 * then be told apart: a JS leak grows heapUsed, a native one grows anon or [heap] alone.
 */
export interface MemorySplit {
  rssMb: number | null;
  heapUsedMb: number | null;
  heapTotalMb: number | null;
  externalMb: number | null;
  arrayBuffersMb: number | null;
  /** glibc's main arena (brk heap). */
  brkHeapMb: number | null;
  /** Anonymous mappings other than [heap]: V8's heap spaces, other malloc arenas, big mallocs. */
  anonMmapMb: number | null;
  fileMb: number | null;
  /** Prepared statements cached on the server's connection. */
  cachedStatements: number | null;
  /**
   * The server's longest event-loop block in its current one-minute window (the admin socket's
   * monitor, reset every 60 s): tells a latency spike inside the server from one outside it.
   */
  loopDelayMaxMs: number | null;
  /** WAL syncs for write answers and checkpoints by the thread, so far (db/commit-sync.ts). */
  commitSyncs: number | null;
  checkpoints: number | null;
  partialCheckpoints: number | null;
  /** The WAL file's size: its high-water mark (it restarts in place after a full checkpoint). */
  walMb: number | null;
}

const mb = (bytes: number) => Math.round((bytes / 1048576) * 10) / 10;

function smapsSplit(pid: number): { rss: number; brk: number; anon: number; file: number } | null {
  let text: string;
  try {
    text = readFileSync(`/proc/${pid}/smaps`, "utf8");
  } catch {
    return null;
  }
  const out = { rss: 0, brk: 0, anon: 0, file: 0 };
  let kind: "brk" | "anon" | "file" = "anon";
  for (const line of text.split("\n")) {
    // A mapping's header: "start-end perms offset dev inode [path]".
    const head = /^[0-9a-f]+-[0-9a-f]+ \S+ \S+ \S+ (\d+)\s*(.*)$/.exec(line);
    if (head) {
      const path = head[2];
      kind = path === "[heap]" ? "brk" : head[1] !== "0" || path.startsWith("/") ? "file" : "anon";
      continue;
    }
    const rss = /^Rss:\s+(\d+) kB/.exec(line);
    if (rss) {
      const kb = Number(rss[1]) * 1024;
      out.rss += kb;
      out[kind] += kb;
    }
  }
  return out;
}

function walBytes(dataDir: string): number | null {
  try {
    return mb(statSync(join(dataDir, "roost.db-wal")).size);
  } catch {
    return null;
  }
}

export async function memorySplit(pid: number, dataDir: string): Promise<MemorySplit> {
  const live = await queryAdminSocket(dataDir);
  const maps = smapsSplit(pid);
  return {
    rssMb: maps ? mb(maps.rss) : live ? mb(live.rssBytes) : null,
    heapUsedMb: live ? mb(live.heapUsedBytes) : null,
    heapTotalMb: live?.memory ? mb(live.memory.heapTotalBytes) : null,
    externalMb: live?.memory ? mb(live.memory.externalBytes) : null,
    arrayBuffersMb: live?.memory ? mb(live.memory.arrayBuffersBytes) : null,
    brkHeapMb: maps ? mb(maps.brk) : null,
    anonMmapMb: maps ? mb(maps.anon) : null,
    fileMb: maps ? mb(maps.file) : null,
    cachedStatements: live?.cachedStatements ?? null,
    loopDelayMaxMs: live?.eventLoopDelayMs?.max ?? null,
    commitSyncs: live?.commits?.syncs ?? null,
    checkpoints: live?.commits?.checkpoints ?? null,
    partialCheckpoints: live?.commits?.partialCheckpoints ?? null,
    walMb: walBytes(dataDir),
  };
}
