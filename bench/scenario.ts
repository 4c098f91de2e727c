// The shape of a benchmark scenario. bench/run.ts runs each one against a fresh data dir and
// a server in a child process; a later issue adds a file to bench/scenarios/ and lists it in
// bench/run.ts.
import type { App } from "../src/app.ts";
import type { InitOptions } from "../src/services/init.ts";

export interface Target {
  /** Short name used in the table and the results file. */
  name: string;
  method?: "GET" | "POST";
  path: string;
  headers?: Record<string, string>;
  body?: string;
  /** The reference the other targets are compared with (a static response). */
  baseline?: boolean;
}

export interface TargetResult {
  name: string;
  method: string;
  path: string;
  /** Status of a single request sent before the run; a non-2xx target is skipped. */
  status: number;
  skipped: boolean;
  reqPerSec: number | null;
  p50Ms: number | null;
  p99Ms: number | null;
  non2xx: number;
  errors: number;
  bytesPerReq: number | null;
  maxRssMb: number | null;
  /**
   * Each trial's figures when the target ran more than once (`--trials N`); the fields above
   * are then the medians, so one noisy trial cannot pass or fail a budget on its own.
   */
  trials?: { reqPerSec: number; p50Ms: number; p99Ms: number }[];
}

/** A figure measured by a scenario's own code (not an autocannon target). */
export interface Metric {
  name: string;
  value: number | null;
  unit: string;
  /** Each trial's value when the figure is a median of several. */
  trials?: number[];
}

export interface RunSummary {
  idleRssMb: number | null;
  loadRssMb: number | null;
  targets: TargetResult[];
  metrics: Metric[];
}

/** What a scenario's measure() gets: the running server and the run's settings. */
export interface MeasureContext<Seed> {
  url: string;
  pid: number;
  dataDir: string;
  seed: Seed;
  seconds: number;
  warmup: number;
  connections: number;
  trials: number;
  /** Node's arguments for a `roost` command in the run's mode (another server, a CLI command). */
  cliArgs(args: string[]): string[];
  /** The environment the server runs with. */
  cliEnv: NodeJS.ProcessEnv;
  /** `--minutes`: how long the soak runs (default 30). */
  minutes: number;
}

export interface Check {
  name: string;
  /** null: could not be evaluated (e.g. the endpoint is not implemented yet). */
  ok: boolean | null;
  detail: string;
}

export interface Scenario<Seed = unknown> {
  name: string;
  description: string;
  /** Runs in the bench process against the initialised data dir, before the server starts. */
  seed(app: App): Promise<Seed>;
  /** Options for the bench instance's `roost init` (federation: allowPrivateAddresses). */
  init?: Partial<Omit<InitOptions, "domain">>;
  /** The concurrency its budgets are stated at; `--connections` overrides it (default 32). */
  connections?: number;
  /** Extra environment of the server process (e.g. ROOST_JOBS_AUTORUN=false). */
  serverEnv?: Record<string, string>;
  targets(seed: Seed): Target[];
  /**
   * Measurements that a fixed autocannon target cannot express (signed requests, effects
   * observed outside the server). Runs after the targets; its rows join the table.
   */
  measure?(ctx: MeasureContext<Seed>): Promise<{ targets?: TargetResult[]; metrics: Metric[] }>;
  /** Runs once the server has stopped, even after a failure (helper servers to close). */
  teardown?(): Promise<void>;
  checks(summary: RunSummary): Check[];
}
