import type { BackupVerification } from "../src/ops/backup-verify.ts";
import type { StatusReport } from "../src/ops/status.ts";
import type { PruneReport } from "../src/ops/storage-prune.ts";

// Human-readable renderings of the operator reports (`--json` prints the objects themselves).

export function bytes(n: number): string {
  if (n < 1024) return `${n} B`;
  const units = ["KB", "MB", "GB", "TB"];
  let v = n / 1024;
  let i = 0;
  while (v >= 1024 && i < units.length - 1) {
    v /= 1024;
    i++;
  }
  return `${v.toFixed(v >= 100 ? 0 : 1)} ${units[i]}`;
}

const table = (rows: [string, string][], indent = "  ") => {
  const w = Math.max(0, ...rows.map(([k]) => k.length));
  return rows.map(([k, v]) => `${indent}${k.padEnd(w)}  ${v}`).join("\n") + "\n";
};

export function formatVerification(r: BackupVerification): string {
  const m = r.manifest;
  let out = `backup ${r.file}\n`;
  out += table([
    ["created", `${m.createdAt}${m.roostVersion ? ` by roost ${m.roostVersion}` : ""}${m.kind ? ` (${m.kind})` : ""}`],
    ["schema", `${String(m.schemaVersion).padStart(4, "0")}${r.migrationsApplied.length ? `; restoring it here applies ${r.migrationsApplied.join(", ")}` : " (current)"}`],
    ["integrity", "ok (integrity_check, foreign_key_check)"],
    ["media", `${r.media.files} files, ${bytes(r.media.bytes)}${r.media.missing ? `; ${r.media.missing} referenced file(s) missing, e.g. ${r.media.missingExamples.join(", ")}` : ""}`],
  ]);
  out += "rows:\n" + table(Object.entries(r.rows).map(([k, v]) => [k, String(v)]));
  out += "verified: the backup restores\n";
  return out;
}

function duration(seconds: number): string {
  const d = Math.floor(seconds / 86400);
  const h = Math.floor((seconds % 86400) / 3600);
  const m = Math.floor((seconds % 3600) / 60);
  if (d > 0) return `${d}d ${h}h`;
  if (h > 0) return `${h}h ${m}m`;
  return m > 0 ? `${m}m ${seconds % 60}s` : `${seconds}s`;
}

const ago = (ms: number, now: number) => `${duration(Math.max(0, Math.round((now - ms) / 1000)))} ago`;

export function formatStatus(r: StatusReport, now: number): string {
  const out: string[] = [];
  const s = r.server;
  out.push(`roost ${r.version}  ${r.domain}  (${r.dataDir})`);
  out.push(
    s
      ? `server     running: pid ${s.pid}, ${s.url}, up ${duration(s.uptimeSeconds)}, RSS ${bytes(s.rssBytes)}, event-loop delay p99 ${s.eventLoopDelayMs.p99} ms${s.version !== r.version ? ` (version ${s.version})` : ""}`
      : "server     not running (nothing answers on DATA_DIR/roost.sock)",
  );
  const pending = r.database.pendingMigrations.length ? `; ${r.database.pendingMigrations.length} migration(s) pending: ${r.database.pendingMigrations.join(", ")}` : "";
  out.push(`database   ${bytes(r.database.bytes)}, WAL ${bytes(r.database.walBytes)}, schema ${String(r.database.schemaVersion).padStart(4, "0")}${pending}`);
  const folders = Object.entries(r.media.byFolder).map(([k, u]) => `${k} ${bytes(u.bytes)}`);
  out.push(`media      ${bytes(r.media.bytes)} in ${r.media.files} files${folders.length ? ` (${folders.join(", ")})` : ""}`);
  out.push(
    r.storage.budgetBytes
      ? `storage    ${bytes(r.storage.usedBytes)} of the ${bytes(r.storage.budgetBytes)} budget (${r.storage.percentOfBudget}%)`
      : `storage    ${bytes(r.storage.usedBytes)} (database and media; no storage budget set)`,
  );
  const b = r.backups;
  out.push(
    `backups    ${b.schedule === "off" ? "no schedule" : b.schedule}; ` +
      (b.last ? `last ${new Date(b.last.createdAt).toISOString()} (${ago(b.last.createdAt, now)}, ${b.last.kind}, ${bytes(b.last.bytes)}); ${b.count} in DATA_DIR/backups, ${bytes(b.bytes)}` : "none in DATA_DIR/backups"),
  );
  const f = r.federation;
  out.push(
    `federation ${f.peersFailing} peer(s) failing, ${f.peersUnavailable} unavailable` +
      (f.worst.length ? ` (${f.worst.map((w) => `${w.domain}: ${w.failureDays} day(s)`).join(", ")})` : ""),
  );
  out.push(`ffmpeg     ${r.ffmpeg.available ? r.ffmpeg.version : "not found: videos are accepted only when browsers already play them"}`);
  if (r.pam.enabled) out.push(`pam        ${r.pam.available ? "sign-in available" : `unavailable: ${r.pam.reason}`}`);
  out.push("jobs:");
  if (r.jobs.length === 0) out.push("  (no jobs)");
  else {
    const rows = [["queue", "due", "scheduled", "running", "retrying", "dead", "dead 24h", "oldest due"]];
    for (const q of r.jobs) {
      rows.push([q.queue, String(q.due), String(q.scheduled), String(q.running), String(q.retrying), String(q.dead), String(q.deadLastDay), q.oldestDueAt === null ? "-" : ago(q.oldestDueAt, now)]);
    }
    const w = rows[0].map((_, i) => Math.max(...rows.map((row) => row[i].length)));
    for (const row of rows) out.push("  " + row.map((c, i) => (i === 0 ? c.padEnd(w[i]) : c.padStart(w[i]))).join("  "));
  }
  return out.join("\n") + "\n";
}

export function formatPruneReport(r: PruneReport): string {
  const verb = r.dryRun ? "would go" : "removed";
  const approx = r.dryRun ? "about " : "";
  let out = `${r.dryRun ? "dry run: nothing removed\n" : ""}`;
  out += table([
    ["budget", r.budgetBytes === null ? "none (storageBudgetBytes 0)" : bytes(r.budgetBytes)],
    ["retention", r.retentionDays > 0 ? `${r.retentionDays} days for remote content nobody here touched` : "none (remoteContentRetentionDays 0)"],
    ["remote media", `${r.media.items} cached item(s), ${r.media.files} file(s), ${bytes(r.media.bytes)} ${verb}`],
    ["remote posts", `${r.statuses.count} ${verb} (${approx}${bytes(r.statuses.estimatedBytes)})`],
    ["remote profiles", `${r.accounts.count} retired (cached images gone, refresh stopped; rows and keys kept)`],
    ["storage", `${bytes(r.before.totalBytes)} → ${approx}${bytes(r.after.totalBytes)} (database ${bytes(r.after.databaseBytes)}, media ${bytes(r.after.mediaBytes)})`],
  ]);
  return out;
}
