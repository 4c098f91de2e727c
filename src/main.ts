import { createServer, type Server } from "node:http";
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
import { StandardReasonResponse } from "./http/node-response.ts";
import { databasePath, mediaPath } from "./services/init.ts";
import { closeHttpAgents } from "./federation/net/safe-fetch.ts";

export interface CreateAppOptions {
  log?: Log;
  now?: () => number;
}

/** Wires everything together. Importing this module has no side effects. */
export function createApp(config: Config, opts: CreateAppOptions = {}): App {
  checkSecret(config);
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
  } as Omit<App, "jobs" | "pool"> as App;
  app.pool = createWorkerPool({ maxThreads: config.poolMaxThreads, idleTimeout: config.poolIdleMs, log });
  app.jobs = createJobs(app);
  registerJobHandlers(app);
  return app;
}

export interface RunningServer {
  url: string;
  server: Server;
  http: HttpApp;
  /** Stops accepting connections, finishes in-flight requests, stops jobs, closes the pool and db. */
  close(): Promise<void>;
}

export async function startServer(app: App, opts: { host: string; port: number }): Promise<RunningServer> {
  const http = createHttpApp(app);
  const server = createServer({ ServerResponse: StandardReasonResponse }, toNodeHandler(http.h3));
  server.keepAliveTimeout = 5000;
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(opts.port, opts.host, () => resolve());
  });
  const addr = server.address();
  const port = typeof addr === "object" && addr ? addr.port : opts.port;
  const host = opts.host.includes(":") ? `[${opts.host}]` : opts.host;
  if (app.config.jobsAutorun) app.jobs.start();
  let closing: Promise<void> | undefined;
  return {
    url: `http://${host}:${port}`,
    server,
    http,
    close() {
      closing ??= (async () => {
        const closed = new Promise<void>((resolve) => server.close(() => resolve()));
        server.closeIdleConnections();
        await closed;
        await closeApp(app);
      })();
      return closing;
    },
  };
}

export async function closeApp(app: App): Promise<void> {
  await app.jobs.stop();
  await app.pool.close();
  closeHttpAgents(app);
  if (app.db.open) app.db.close();
}
