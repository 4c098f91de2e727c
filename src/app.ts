import type { CommitSync } from "./db/commit-sync.ts";
import type { Checkpointer } from "./db/checkpointer.ts";
import type { Config } from "./config/config.ts";
import type { DB } from "./db/db.ts";
import type { IdGenerator } from "./lib/ids.ts";
import type { Log } from "./lib/log.ts";
import type { Jobs } from "./jobs/jobs.ts";
import type { WorkerPool } from "./workers/pool.ts";
import type { EventBus } from "./events/bus.ts";
import type { StreamingHub } from "./streaming/hub.ts";
import type { Metrics } from "./ops/metrics.ts";

/**
 * Everything a request, job or command needs, passed explicitly (no module-level state, so
 * a test can run two servers in one process).
 */
export interface App {
  config: Config;
  db: DB;
  ids: IdGenerator;
  log: Log;
  /** Current time in ms; tests may replace it. */
  now: () => number;
  /** `${protocol}://${domain}`, without a trailing slash. */
  baseUrl: string;
  jobs: Jobs;
  pool: WorkerPool;
  /** Absolute path of the media directory inside the data dir. */
  mediaDir: string;
  /** In-memory caches that are safe to lose (token lookups, settings). */
  cache: Map<string, unknown>;
  /**
   * Every route the HTTP layer serves, as services/capabilities.ts routeKey()s; filled by
   * createHttpApp. The instance documents advertise only what these routes serve.
   */
  routes: ReadonlySet<string>;
  /** The in-process event bus: changes that live streams (and later Web Push) hear of. */
  events: EventBus;
  /** The open streaming connections; set by the HTTP layer (createHttpApp). */
  streams?: StreamingHub;
  /** Counters for /metrics (a no-op unless `metricsToken` is set); see ops/metrics.ts. */
  metrics: Metrics;
  /**
   * Set by startServer: the commits' fsync, off the event loop. Write requests are answered
   * once it resolved (db/commit-sync.ts). Commands commit with synchronous=FULL instead.
   */
  commits?: CommitSync;
  /** Set by startServer: WAL checkpoints in a thread of their own (db/checkpointer.ts). */
  checkpointer?: Checkpointer | null;
}
