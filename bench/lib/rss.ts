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

/**
 * User + system CPU time of a process so far, in ms (Linux /proc; clock ticks assumed 100 Hz);
 * null where there is no /proc. Per request, it hardly depends on what else the machine runs.
 */
export function cpuMs(pid: number): number | null {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, "utf8").replace(/^.*\) /, "").split(" ");
    return (Number(fields[11]) + Number(fields[12])) * 10;
  } catch {
    return null;
  }
}
