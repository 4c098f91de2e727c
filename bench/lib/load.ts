import autocannon from "autocannon";
import type { Target } from "../scenario.ts";

export interface LoadResult {
  reqPerSec: number;
  p50Ms: number;
  p99Ms: number;
  non2xx: number;
  errors: number;
  bytesPerReq: number;
}

/** One autocannon run: `connections` keep-alive connections for `seconds`. */
export async function runLoad(baseUrl: string, t: Target, connections: number, seconds: number): Promise<LoadResult> {
  const r = await autocannon({
    url: baseUrl + t.path,
    method: t.method ?? "GET",
    headers: t.headers,
    body: t.body,
    connections,
    duration: seconds,
  });
  const total = r.requests.total || 1;
  return {
    reqPerSec: r.requests.average,
    p50Ms: r.latency.p50,
    p99Ms: r.latency.p99,
    non2xx: r.non2xx,
    errors: r.errors + r.timeouts,
    bytesPerReq: Math.round(r.throughput.total / total),
  };
}

/** A single request, to know the target answers 2xx before loading it. */
export async function probe(baseUrl: string, t: Target): Promise<number> {
  const res = await fetch(baseUrl + t.path, { method: t.method ?? "GET", headers: t.headers, body: t.body });
  await res.arrayBuffer();
  return res.status;
}
