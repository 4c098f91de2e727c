import type { BackupVerification } from "../src/ops/backup-verify.ts";

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
