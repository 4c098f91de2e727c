// The shape of a benchmark scenario. bench/run.ts runs each one against a fresh data dir and
// a server in a child process; a later issue adds a file to bench/scenarios/ and lists it in
// bench/run.ts.
import type { App } from "../src/app.ts";

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
}

export interface RunSummary {
  idleRssMb: number | null;
  loadRssMb: number | null;
  targets: TargetResult[];
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
  targets(seed: Seed): Target[];
  checks(summary: RunSummary): Check[];
}
