export type LogLevel = "debug" | "info" | "warn" | "error" | "silent";

/** A small structured logger: one JSON line per entry on stderr (stdout is for results). */
export interface Log {
  debug(msg: string, extra?: Record<string, unknown>): void;
  info(msg: string, extra?: Record<string, unknown>): void;
  warn(msg: string, extra?: Record<string, unknown>): void;
  error(msg: string, extra?: Record<string, unknown>): void;
  /** Whether entries of `level` are written (to skip building costly ones). */
  enabled(level: Exclude<LogLevel, "silent">): boolean;
}

const ORDER: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40, silent: 100 };

export function createLog(level: LogLevel, write: (line: string) => void = (l) => process.stderr.write(l)): Log {
  const min = ORDER[level];
  const emit = (lvl: Exclude<LogLevel, "silent">, msg: string, extra?: Record<string, unknown>) => {
    if (ORDER[lvl] < min) return;
    const entry: Record<string, unknown> = { time: new Date().toISOString(), level: lvl, msg, ...extra };
    if (extra?.err instanceof Error) entry.err = { message: extra.err.message, stack: extra.err.stack };
    write(JSON.stringify(entry) + "\n");
  };
  return {
    debug: (m, e) => emit("debug", m, e),
    info: (m, e) => emit("info", m, e),
    warn: (m, e) => emit("warn", m, e),
    error: (m, e) => emit("error", m, e),
    enabled: (lvl) => ORDER[lvl] >= min,
  };
}
