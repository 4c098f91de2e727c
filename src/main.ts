import { createServer, type Server } from "node:http";
import { deferCommitSync } from "./db/commit-sync.ts";
import { startCheckpointer } from "./db/checkpointer.ts";
import { toNodeHandler } from "h3";
import type { App } from "./app.ts";
import { type Config, baseUrl, checkSecret } from "./config/config.ts";
import { openDatabase } from "./db/db.ts";
import { migrate } from "./db/migrate.ts";
import { createIdGenerator } from "./lib/ids.ts";
import { createLog, type Log } from "./lib/log.ts";
import { createJobs } from "./jobs/runner.ts";
import { registerJobHandlers } from "./jobs/register.ts";
import { createWorkerPool } from "./workers/pool.ts";
import { createHttpApp, type HttpApp } from "./http/server.ts";
import { attachWebSocketUpgrades } from "./http/upgrade.ts";
import { installRowCache } from "./storage/row-cache.ts";
import { STATUS_ROWS_CACHE } from "./storage/status-cache.ts";
import { TOKEN_OWNERS_CACHE } from "./services/token-cache.ts";
import { CREDENTIAL_EXTRAS_CACHE, EMBEDDED_ACCOUNTS_CACHE } from "./serializers/account.ts";
import { STATUS_JSON_CACHE } from "./serializers/status.ts";
import { StandardReasonResponse } from "./http/node-response.ts";
import { databasePath, mediaPath } from "./services/init.ts";
import { s3Settings } from "./media/s3-store.ts";
import { closeHttpAgents } from "./federation/net/safe-fetch.ts";
import { stopMediaTools } from "./media/ffmpeg.ts";
import { preparePam } from "./services/external-auth/pam.ts";
import { hasJobNamed } from "./jobs/job-store.ts";
import { installFuzzyNames } from "./search/fuzzy-names.ts";
import { installAccountNames } from "./search/account-names.ts";
import { isStatusIndexPending, REBUILD_JOB } from "./search/status-index.ts";
import { EventBus } from "./events/bus.ts";
import { createMetrics } from "./ops/metrics.ts";

export interface CreateAppOptions {
  log?: Log;
  now?: () => number;
}

/** Wires everything together. Importing this module has no side effects. */
export function createApp(config: Config, opts: CreateAppOptions = {}): App {
  checkSecret(config);
  if (config.mediaStorage === "s3") s3Settings(config);
  const log = opts.log ?? createLog(config.logLevel);
  const db = openDatabase(databasePath(config.dataDir));
  migrate(db);
  const now = opts.now ?? Date.now;
  const app = {
    config,
    db,
    ids: createIdGenerator(now),
    log,
    now,
    baseUrl: baseUrl(config),
    mediaDir: mediaPath(config.dataDir),
    cache: new Map(),
    routes: new Set(),
    events: new EventBus(db, log),
  } as Omit<App, "jobs" | "pool" | "metrics"> as App;
  app.metrics = createMetrics(app);
  app.pool = createWorkerPool({ maxThreads: config.poolMaxThreads, idleTimeout: config.poolIdleMs, log });
  app.jobs = createJobs(app);
  registerJobHandlers(app);
  return app;
}

/**
 * The request path's caches (exact: see storage/row-cache.ts), installed before the HTTP app
 * is created and any request runs. Commands do without them.
 */
export function installReadCaches(app: App): void {
  for (const spec of [TOKEN_OWNERS_CACHE, EMBEDDED_ACCOUNTS_CACHE, CREDENTIAL_EXTRAS_CACHE, STATUS_ROWS_CACHE, STATUS_JSON_CACHE]) {
    installRowCache(app, spec);
  }
}

export interface RunningServer {
  url: string;
  server: Server;
  http: HttpApp;
  /** Stops accepting connections, finishes in-flight requests, stops jobs, closes the pool and db. */
  close(): Promise<void>;
}

/**
 * Search's start: the name matcher's row watches (installed like the read caches), and the
 * background build of the status index when statuses predate it (an upgraded instance).
 */
export function startSearch(app: App): void {
  installFuzzyNames(app);
  installAccountNames(app);
  if (isStatusIndexPending(app.db) && !hasJobNamed(app.db, REBUILD_JOB)) app.jobs.enqueue(REBUILD_JOB, {});
}

export async function startServer(app: App, opts: { host: string; port: number }): Promise<RunningServer> {
  installReadCaches(app);
  startSearch(app);
  // PAM's binding is an optional native addon: loaded now, so the log says at start if it is missing.
  if (app.config.pamEnabled) await preparePam(app);
  const http = createHttpApp(app);
  const server = createServer({ ServerResponse: StandardReasonResponse }, toNodeHandler(http.h3));
  const sockets = attachWebSocketUpgrades(server, http.h3);
  server.keepAliveTimeout = 5000;
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(opts.port, opts.host, () => resolve());
  });
  const addr = server.address();
  const port = typeof addr === "object" && addr ? addr.port : opts.port;
  const host = opts.host.includes(":") ? `[${opts.host}]` : opts.host;
  if (app.config.jobsAutorun) app.jobs.start();
  // Commits' fsyncs and WAL checkpoints leave the event loop (db/commit-sync.ts).
  app.commits = deferCommitSync(app.db);
  const checkpointer = (app.checkpointer = startCheckpointer(app.db, app.log));
  let closing: Promise<void> | undefined;
  return {
    url: `http://${host}:${port}`,
    server,
    http,
    close() {
      closing ??= (async () => {
        // Streams first: open WebSockets and SSE responses would keep server.close() waiting.
        await app.streams?.close();
        sockets.terminateAll();
        const closed = new Promise<void>((resolve) => server.close(() => resolve()));
        server.closeIdleConnections();
        await closed;
        await checkpointer?.stop();
        await closeApp(app);
      })();
      return closing;
    },
  };
}

export async function closeApp(app: App): Promise<void> {
  // A running transcode is ended: its upload stays queued and the job runs again next start.
  stopMediaTools(app);
  await app.jobs.stop();
  await app.pool.close();
  closeHttpAgents(app);
  if (app.db.open) app.db.close();
}
