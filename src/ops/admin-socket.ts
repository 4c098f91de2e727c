import { chmodSync, existsSync, rmSync } from "node:fs";
import { createServer, request, type Server } from "node:http";
import { join } from "node:path";
import { monitorEventLoopDelay } from "node:perf_hooks";
import type { App } from "../app.ts";
import { cachedStatementCount } from "../db/db.ts";
import { cachedRowStatementCount } from "../db/rows.ts";
import { ROOST_VERSION } from "../version.ts";

// The running server's admin socket: DATA_DIR/roost.sock, a Unix socket only its owner can
// open (mode 0600), speaking HTTP. `roost status` asks it for what only the live process
// knows: its pid, uptime, memory and event-loop delay. It also tells a second `serve` on the
// same data dir that one is already running.

export const adminSocketPath = (dataDir: string) => join(dataDir, "roost.sock");
/** sun_path holds 108 bytes on Linux, the terminating NUL included. */
const MAX_SOCKET_PATH = 107;

export interface LiveStatus {
  pid: number;
  version: string;
  url: string;
  startedAt: string;
  uptimeSeconds: number;
  rssBytes: number;
  heapUsedBytes: number;
  /** process.memoryUsage()'s split, so a drift in RSS can be told apart (JS heap, Buffers, native). */
  memory: { heapTotalBytes: number; externalBytes: number; arrayBuffersBytes: number };
  /** Prepared statements the server's connection caches (db/db.ts stmt() and db/rows.ts). */
  cachedStatements: number;
  /** Event-loop delay over the last minute, in ms (p50, p99, max). */
  eventLoopDelayMs: { p50: number; p99: number; max: number };
  /** Durability off the loop: WAL syncs for write answers, checkpoints done by the thread. */
  commits?: { syncs: number; checkpoints: number; partialCheckpoints: number };
}

/** Asks the server on `dataDir` for its status; undefined when none answers. */
export function queryAdminSocket(dataDir: string, timeoutMs = 2000): Promise<LiveStatus | undefined> {
  const socketPath = adminSocketPath(dataDir);
  if (!existsSync(socketPath)) return Promise.resolve(undefined);
  return new Promise((resolve) => {
    const req = request({ socketPath, path: "/status", timeout: timeoutMs }, (res) => {
      let body = "";
      res.setEncoding("utf8");
      res.on("data", (c: string) => (body += c));
      res.on("end", () => {
        try {
          resolve(res.statusCode === 200 ? (JSON.parse(body) as LiveStatus) : undefined);
        } catch {
          resolve(undefined);
        }
      });
    });
    req.on("timeout", () => req.destroy());
    req.on("error", () => resolve(undefined));
    req.end();
  });
}

export class AdminSocketBusyError extends Error {
  override name = "AdminSocketBusyError";
}

/**
 * Listens on the admin socket. A socket file left by a server that was killed is replaced; one
 * a live server answers on means another `serve` runs on this data dir: AdminSocketBusyError.
 * Returns undefined (after a warning) where the path is too long for a Unix socket.
 */
export async function startAdminSocket(app: App, url: () => string): Promise<{ close(): Promise<void> } | undefined> {
  const socketPath = adminSocketPath(app.config.dataDir);
  if (Buffer.byteLength(socketPath) > MAX_SOCKET_PATH) {
    app.log.warn("data dir path too long for the admin socket; roost status will not see the server", { socketPath });
    return undefined;
  }
  const other = await queryAdminSocket(app.config.dataDir, 1000);
  if (other) throw new AdminSocketBusyError(`another roost serve (pid ${other.pid}, ${other.url}) is running on ${app.config.dataDir}`);
  rmSync(socketPath, { force: true });

  const startedAt = new Date();
  const delay = monitorEventLoopDelay({ resolution: 10 });
  delay.enable();
  const reset = setInterval(() => delay.reset(), 60_000).unref();
  const ms = (ns: number) => Math.round((ns / 1e6) * 10) / 10;
  const server: Server = createServer((req, res) => {
    if (req.method !== "GET" || req.url !== "/status") {
      res.writeHead(404).end();
      return;
    }
    const mem = process.memoryUsage();
    const body: LiveStatus = {
      pid: process.pid,
      version: ROOST_VERSION,
      url: url(),
      startedAt: startedAt.toISOString(),
      uptimeSeconds: Math.round((Date.now() - startedAt.getTime()) / 1000),
      rssBytes: mem.rss,
      heapUsedBytes: mem.heapUsed,
      memory: { heapTotalBytes: mem.heapTotal, externalBytes: mem.external, arrayBuffersBytes: mem.arrayBuffers },
      cachedStatements: cachedStatementCount(app.db) + cachedRowStatementCount(app.db),
      eventLoopDelayMs: { p50: ms(delay.percentile(50)), p99: ms(delay.percentile(99)), max: ms(delay.max) },
      commits: {
        syncs: app.commits?.syncs() ?? 0,
        checkpoints: app.checkpointer?.stats().checkpoints ?? 0,
        partialCheckpoints: app.checkpointer?.stats().partial ?? 0,
      },
    };
    res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(body));
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(socketPath, () => resolve());
  });
  // Owner only. (Connecting needs write permission, which the usual umask already withholds
  // from others until this runs.)
  chmodSync(socketPath, 0o600);
  server.unref();
  return {
    close: () =>
      new Promise<void>((resolve) => {
        clearInterval(reset);
        delay.disable();
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
