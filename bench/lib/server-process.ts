import { type ChildProcess, spawn } from "node:child_process";
import { createServer } from "node:net";

export interface ServerProcess {
  pid: number;
  url: string;
  /** SIGTERM, then waits for the exit; returns the exit code. */
  stop(): Promise<number | null>;
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

/**
 * Starts `roost serve` as a child process (so its RSS is its own) and resolves once it prints
 * `listening on URL`. stderr beyond that line is passed through for errors.
 */
export async function startServerProcess(opts: {
  args: string[];
  env: NodeJS.ProcessEnv;
  timeoutMs?: number;
}): Promise<ServerProcess> {
  const child: ChildProcess = spawn(process.execPath, opts.args, { env: opts.env, stdio: ["ignore", "ignore", "pipe"] });
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  const url = await new Promise<string>((resolve, reject) => {
    let buf = "";
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(new Error(`server did not start within ${opts.timeoutMs ?? 20_000} ms:\n${buf}`));
    }, opts.timeoutMs ?? 20_000);
    const onData = (chunk: Buffer) => {
      buf += chunk.toString("utf8");
      const m = /^listening on (\S+)$/m.exec(buf);
      if (m) {
        clearTimeout(timer);
        resolve(m[1]);
      }
    };
    child.stderr!.on("data", onData);
    child.once("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`server exited with ${code} before listening:\n${buf}`));
    });
  });
  child.stderr!.on("data", (c: Buffer) => process.stderr.write(c));
  return {
    pid: child.pid!,
    url,
    async stop() {
      child.kill("SIGTERM");
      return exited;
    },
  };
}
