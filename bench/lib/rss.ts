import { readdirSync, readFileSync } from "node:fs";

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

/** The process's children, grandchildren... (Linux /proc); [] where there is no /proc. */
function descendants(pid: number): number[] {
  const out: number[] = [];
  let tasks: string[];
  try {
    tasks = readdirSync(`/proc/${pid}/task`);
  } catch {
    return out;
  }
  for (const tid of tasks) {
    let children = "";
    try {
      children = readFileSync(`/proc/${pid}/task/${tid}/children`, "utf8");
    } catch {
      continue;
    }
    for (const c of children.split(" ").filter(Boolean).map(Number)) out.push(c, ...descendants(c));
  }
  return out;
}

/**
 * RSS of a process and all its descendants in MB: the server plus the worker processes it
 * forked (the image worker). Null where there is no /proc.
 */
export function treeRssMb(pid: number): number | null {
  const own = rssMb(pid);
  if (own === null) return null;
  return descendants(pid).reduce((sum, c) => sum + (rssMb(c) ?? 0), own);
}

/**
 * Samples a process's RSS (with `tree`, its descendants' too) every `everyMs` until stopped;
 * returns the maximum seen.
 */
export function sampleRss(pid: number, everyMs = 100, tree = false): { stop(): number | null } {
  const read = tree ? treeRssMb : rssMb;
  let max: number | null = read(pid);
  const timer = setInterval(() => {
    const v = read(pid);
    if (v !== null && (max === null || v > max)) max = v;
  }, everyMs);
  return {
    stop() {
      clearInterval(timer);
      const v = read(pid);
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
