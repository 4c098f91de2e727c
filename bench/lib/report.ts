import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Check, RunSummary } from "../scenario.ts";

export interface BenchRecord extends RunSummary {
  scenario: string;
  description: string;
  startedAt: string;
  /** bundle: dist-style build run with plain node (production); source: tsx. */
  mode: "bundle" | "source";
  connections: number;
  seconds: number;
  /** Runs per target; the table shows each target's median. */
  trials: number;
  machine: { node: string; platform: string; cpus: number; cpuModel: string; loadAvg?: { start: number; end: number } };
  checks: Check[];
}

const fmt = (v: number | null, digits = 0) => (v === null ? "-" : v.toFixed(digits));

export function printTable(r: BenchRecord): void {
  const rows = [
    ["target", "status", "req/s", "p50 ms", "p99 ms", "non-2xx", "bytes", "max RSS MB"],
    ...r.targets.map((t) => [
      t.name,
      String(t.status),
      t.skipped ? "skipped" : fmt(t.reqPerSec),
      fmt(t.p50Ms, 1),
      fmt(t.p99Ms, 1),
      String(t.non2xx),
      fmt(t.bytesPerReq),
      fmt(t.maxRssMb, 1),
    ]),
  ];
  const widths = rows[0].map((_, i) => Math.max(...rows.map((row) => row[i].length)));
  const line = (row: string[]) => row.map((c, i) => (i === 0 ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join("  ");
  const out: string[] = [];
  const trials = r.trials > 1 ? `, median of ${r.trials} trials` : "";
  const load = r.targets.length ? `${r.connections} connections, ${r.seconds} s per target` : "own measurements";
  const busy = r.machine.loadAvg ? `, load average ${r.machine.loadAvg.start.toFixed(1)} → ${r.machine.loadAvg.end.toFixed(1)}` : "";
  out.push(`\n${r.scenario} (${r.mode}, ${load}${trials}, node ${r.machine.node}, ${r.machine.cpus} CPUs${busy})`);
  if (r.targets.length) {
    out.push(line(rows[0]));
    for (const row of rows.slice(1)) out.push(line(row));
    for (const t of r.targets) {
      if (t.trials && t.trials.length > 1) out.push(`  ${t.name}: req/s per trial ${t.trials.map((x) => x.reqPerSec.toFixed(0)).join(", ")}`);
    }
  }
  if (r.metrics.length) {
    const w = Math.max(...r.metrics.map((m) => m.name.length));
    const num = (v: number) => (Number.isInteger(v) || Math.abs(v) >= 100 ? v.toFixed(0) : Math.abs(v) >= 10 ? v.toFixed(1) : v.toFixed(2));
    for (const m of r.metrics) {
      const each = m.trials && m.trials.length > 1 ? `   (trials: ${m.trials.map(num).join(", ")})` : "";
      out.push(`${m.name.padEnd(w)}  ${m.value === null ? "-" : num(m.value)} ${m.unit}${each}`);
    }
  }
  out.push(`idle RSS: ${fmt(r.idleRssMb, 1)} MB   RSS under load (max): ${fmt(r.loadRssMb, 1)} MB`);
  out.push("budget checks:");
  for (const c of r.checks) out.push(`  ${c.ok === null ? "SKIP" : c.ok ? "PASS" : "FAIL"}  ${c.name}: ${c.detail}`);
  console.log(out.join("\n"));
}

/** bench/results/<timestamp>-<scenario>.json and latest-<scenario>.json. */
export function writeResults(dir: string, r: BenchRecord): string {
  mkdirSync(dir, { recursive: true });
  const stamp = r.startedAt.replace(/[-:]/g, "").replace(/\.\d+Z$/, "Z");
  const json = JSON.stringify(r, null, 2) + "\n";
  const file = join(dir, `${stamp}-${r.scenario}.json`);
  writeFileSync(file, json);
  writeFileSync(join(dir, `latest-${r.scenario}.json`), json);
  return file;
}
