import { readFileSync } from "node:fs";

/** Resident set size of a process in MB, from /proc (Linux); null where there is no /proc. */
export function rssMb(pid: number): number | null {
  try {
    const status = readFileSync(`/proc/${pid}/status`, "utf8");
    const m = /^VmRSS:\s+(\d+)\s+kB/m.exec(status);
    return m ? Number(m[1]) / 1024 : null;
  } catch {
    return null;
  }
}

/** Samples a process's RSS every `everyMs` until stopped; returns the maximum seen. */
export function sampleRss(pid: number, everyMs = 100): { stop(): number | null } {
  let max: number | null = rssMb(pid);
  const timer = setInterval(() => {
    const v = rssMb(pid);
    if (v !== null && (max === null || v > max)) max = v;
  }, everyMs);
  return {
    stop() {
      clearInterval(timer);
      const v = rssMb(pid);
      if (v !== null && (max === null || v > max)) max = v;
      return max;
    },
  };
}
