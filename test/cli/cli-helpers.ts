import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, readFileSync, readdirSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

// Runs the real CLI as a subprocess, exactly as an operator would (through tsx).
export const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const CLI = join(ROOT, "cli", "roost.ts");

export interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** The environment without the caller's ROOST_* settings (the test runner sets some). */
export function cleanEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) if (!k.startsWith("ROOST_")) env[k] = v;
  return { ...env, ROOST_LOG_LEVEL: "warn", ...extra };
}

export function spawnRoost(args: string[], env: Record<string, string> = {}, user: { uid?: number; gid?: number } = {}): ChildProcess {
  return spawn(process.execPath, ["--import", "tsx", CLI, ...args], { cwd: ROOT, env: cleanEnv(env), stdio: ["pipe", "pipe", "pipe"], ...user });
}

/** `uid`/`gid`: run as another user (tests running as root use nobody to meet permission bits). */
export async function roost(args: string[], opts: { stdin?: string; env?: Record<string, string>; uid?: number; gid?: number } = {}): Promise<Run> {
  const child = spawnRoost(args, opts.env, { uid: opts.uid, gid: opts.gid });
  let stdout = "";
  let stderr = "";
  child.stdout!.on("data", (c: Buffer) => (stdout += c.toString("utf8")));
  child.stderr!.on("data", (c: Buffer) => (stderr += c.toString("utf8")));
  child.stdin!.end(opts.stdin ?? "");
  const code = await new Promise<number | null>((resolve) => child.once("close", (c) => resolve(c)));
  return { code, stdout, stderr };
}

/** A running `roost serve`; resolves once it printed its listening line. */
export async function serve(args: string[], env: Record<string, string> = {}) {
  return running(spawnRoost(["serve", ...args], env));
}

/** Waits for a started server's listening line (the process may be a wrapper such as npm). */
export async function running(child: ChildProcess) {
  child.stdin!.end();
  let stderr = "";
  let signal: NodeJS.Signals | null = null;
  const exited = new Promise<number | null>((resolve) =>
    child.once("close", (c, s) => {
      signal = s;
      resolve(c);
    }),
  );
  const url = await new Promise<string>((resolve, reject) => {
    child.stderr!.on("data", (c: Buffer) => {
      stderr += c.toString("utf8");
      const m = /^listening on (http:\/\/\S+)$/m.exec(stderr);
      if (m) resolve(m[1]);
    });
    void exited.then((code) => reject(new Error(`serve exited with ${code}: ${stderr}`)));
  });
  return {
    url,
    pid: child.pid!,
    stderr: () => stderr,
    /** The signal that ended the process, if one did (null while running or after an exit). */
    exitSignal: () => signal,
    /** Sends a signal without waiting. */
    signal(sig: NodeJS.Signals): void {
      child.kill(sig);
    },
    /** Sends SIGTERM (or the given signal) and returns the exit code. */
    async stop(signal: NodeJS.Signals = "SIGTERM"): Promise<number | null> {
      child.kill(signal);
      return exited;
    },
  };
}

export function tempDir(t: { after(fn: () => void): void }, prefix = "roost-cli-"): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once("error", reject);
    s.listen(0, "127.0.0.1", () => {
      const a = s.address();
      const port = typeof a === "object" && a ? a.port : 0;
      s.close(() => resolve(port));
    });
  });
}

/** Ids of the live processes whose command line contains `marker` (Linux: reads /proc). */
export function pidsWith(marker: string): number[] {
  const pids: number[] = [];
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    try {
      if (readFileSync(`/proc/${name}/cmdline`, "utf8").includes(marker)) pids.push(Number(name));
    } catch {
      // gone meanwhile
    }
  }
  return pids;
}
