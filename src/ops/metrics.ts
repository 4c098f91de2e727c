import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from "prom-client";
import type { App } from "../app.ts";
import { queueStats } from "../jobs/job-store.ts";
import { peerFailureCounts } from "../storage/federation-peers.ts";
import { databasePath } from "../services/init.ts";
import { fileBytes } from "./disk-usage.ts";

// Prometheus metrics at GET /metrics (only when `metricsToken` is set; see http/routes/metrics.ts).
// Counters and histograms are kept in memory per App (two servers in one test process keep
// two registries); queue depths, peers and file sizes are read when Prometheus scrapes.

export type JobOutcome = "done" | "retry" | "dead";

export interface Metrics {
  readonly enabled: boolean;
  /** A request was answered (or abandoned): its route group, method, status and duration. */
  request(group: string, method: string, status: number, seconds: number): void;
  /** A job ran to an outcome. */
  job(name: string, queue: string, outcome: JobOutcome): void;
  /**
   * A gauge read at each scrape, for subsystems that own a live figure. Streaming registers
   * `roost_streaming_connections` here (labels: none) when it exists.
   */
  gauge(name: string, help: string, read: () => number): void;
  /**
   * Deliveries done since the previous call: the admin dashboard's hourly sample
   * (ops/dashboard-samples.ts) counts them whether or not Prometheus is on.
   */
  takeDeliveries(): number;
  /** The Prometheus text exposition. */
  render(): Promise<string>;
  readonly contentType: string;
}

/** Counts done deliveries between two takes (per App: no module-level state). */
function deliveryCounter() {
  let n = 0;
  return {
    count: (name: string, outcome: JobOutcome) => {
      if (name === "federation.deliver" && outcome === "done") n++;
    },
    take: () => {
      const v = n;
      n = 0;
      return v;
    },
  };
}

function disabled(): Metrics {
  const done = deliveryCounter();
  return {
    enabled: false,
    request() {},
    job: (name, _queue, outcome) => done.count(name, outcome),
    gauge() {},
    takeDeliveries: done.take,
    render: async () => "",
    contentType: "text/plain; version=0.0.4; charset=utf-8",
  };
}

/** Latency buckets in seconds: API reads answer in ms; inbox and uploads may take longer. */
const BUCKETS = [0.002, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

export function createMetrics(app: App): Metrics {
  if (!app.config.metricsToken) return disabled();
  const registry = new Registry();
  collectDefaultMetrics({ register: registry, eventLoopMonitoringPrecision: 10 });

  const requests = new Counter({
    name: "roost_http_requests_total",
    help: "HTTP requests answered, by route group, method and status class",
    labelNames: ["group", "method", "status"] as const,
    registers: [registry],
  });
  const latency = new Histogram({
    name: "roost_http_request_duration_seconds",
    help: "Time from a request's arrival until its response was sent, by route group",
    labelNames: ["group", "method"] as const,
    buckets: BUCKETS,
    registers: [registry],
  });
  const jobs = new Counter({
    name: "roost_jobs_total",
    help: "Background job runs by job name and outcome (done, retry, dead)",
    labelNames: ["name", "queue", "outcome"] as const,
    registers: [registry],
  });
  const deliveries = new Counter({
    name: "roost_federation_deliveries_total",
    help: "Outgoing ActivityPub deliveries by outcome (done, retry, dead)",
    labelNames: ["outcome"] as const,
    registers: [registry],
  });

  const stats = () => queueStats(app.db, app.now());
  new Gauge({
    name: "roost_job_queue_depth",
    help: "Jobs due now, per queue",
    labelNames: ["queue"] as const,
    registers: [registry],
    collect() {
      this.reset();
      for (const q of stats()) this.set({ queue: q.queue }, q.due);
    },
  });
  new Gauge({
    name: "roost_job_queue_scheduled",
    help: "Jobs waiting for a later time (retries with backoff, scheduled posts), per queue",
    labelNames: ["queue"] as const,
    registers: [registry],
    collect() {
      this.reset();
      for (const q of stats()) this.set({ queue: q.queue }, q.scheduled);
    },
  });
  new Gauge({
    name: "roost_dead_jobs",
    help: "Jobs that failed for good and are kept for the operator, per queue",
    labelNames: ["queue"] as const,
    registers: [registry],
    collect() {
      this.reset();
      for (const q of stats()) this.set({ queue: q.queue }, q.dead);
    },
  });
  new Gauge({
    name: "roost_federation_peers_failing",
    help: "Peer servers whose latest deliveries failed (state: failing, or unavailable: skipped after 7 days)",
    labelNames: ["state"] as const,
    registers: [registry],
    collect() {
      const p = peerFailureCounts(app.db);
      this.set({ state: "failing" }, p.failing);
      this.set({ state: "unavailable" }, p.unavailable);
    },
  });
  new Gauge({
    name: "roost_database_bytes",
    help: "Size of the SQLite database files (file: db, wal)",
    labelNames: ["file"] as const,
    registers: [registry],
    collect() {
      const db = databasePath(app.config.dataDir);
      this.set({ file: "db" }, fileBytes(db));
      this.set({ file: "wal" }, fileBytes(`${db}-wal`));
    },
  });

  const gauges = new Set<string>();
  const done = deliveryCounter();
  return {
    enabled: true,
    request(group, method, status, seconds) {
      requests.inc({ group, method, status: status === 0 ? "aborted" : `${Math.floor(status / 100)}xx` });
      latency.observe({ group, method }, seconds);
    },
    job(name, queue, outcome) {
      jobs.inc({ name, queue, outcome });
      if (name === "federation.deliver") deliveries.inc({ outcome });
      done.count(name, outcome);
    },
    gauge(name, help, read) {
      if (gauges.has(name)) return;
      gauges.add(name);
      new Gauge({
        name,
        help,
        registers: [registry],
        collect() {
          this.set(read());
        },
      });
    },
    takeDeliveries: done.take,
    render: () => registry.metrics(),
    contentType: registry.contentType,
  };
}
