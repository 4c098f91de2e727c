// Real roost instances as an operator runs them: `roost init` + `roost serve` subprocesses of the
// CLI (through tsx, see test/cli/cli-helpers.ts), users and tokens made with `roost user create`
// and `roost token create`, and the Mastodon client API spoken over HTTP. Jobs run on their own
// inside each server, so cross-process effects are polled for (`eventually`), never slept for.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { databasePath } from "../../src/services/init.ts";
import { freePort, roost, serve } from "../cli/cli-helpers.ts";

export interface InstanceUser {
  /** Account id on its own instance. */
  id: string;
  username: string;
  token: string;
}

export interface ApiResponse<T = any> {
  status: number;
  body: T;
  text: string;
}

export interface Instance {
  /** `127.0.0.1:PORT`, the instance's domain (handles are `user@domain`). */
  domain: string;
  /** `http://127.0.0.1:PORT` */
  url: string;
  dataDir: string;
  user(username: string): Promise<InstanceUser>;
  /** Any API request; never throws on status. Objects are sent as JSON. */
  req<T = any>(who: InstanceUser | null, method: string, path: string, body?: unknown): Promise<ApiResponse<T>>;
  /** An API request that must answer 2xx; returns the parsed body. */
  api<T = any>(who: InstanceUser | null, method: string, path: string, body?: unknown): Promise<T>;
  /** Runs `fn` on a read-only connection to the instance's database (the server keeps running). */
  query<T>(fn: (db: Database.Database) => T): T;
  /** Failed and pending jobs with their last error: what to print when a cross-process step fails. */
  jobTrouble(): string;
  /** The server's stderr so far (warnings and errors; the log level is warn). */
  stderr(): string;
  /** SIGTERM; resolves with the exit code. Idempotent. */
  stop(): Promise<number | null>;
}

async function run(args: string[], stdin?: string): Promise<string> {
  const r = await roost(args, { stdin });
  if (r.code !== 0) throw new Error(`roost ${args.join(" ")} exited with ${r.code}: ${r.stderr.trim()}`);
  return r.stdout.trim();
}

/**
 * Initialises a data dir for `127.0.0.1:PORT` over http with private addresses allowed, and
 * serves it on that port. The domain holds the port, so the port is chosen before `serve`
 * listens; if another process takes it meanwhile, start over on a new one.
 */
export async function startInstance(name: string): Promise<Instance> {
  for (let attempt = 1; ; attempt++) {
    const dataDir = mkdtempSync(join(tmpdir(), `roost-${name}-`));
    try {
      return await startIn(dataDir);
    } catch (e) {
      rmSync(dataDir, { recursive: true, force: true });
      if (!/EADDRINUSE/.test(String(e)) || attempt >= 3) throw e;
    }
  }
}

async function startIn(dataDir: string): Promise<Instance> {
  const port = await freePort();
  const domain = `127.0.0.1:${port}`;
  await run(["init", "--data-dir", dataDir, "--domain", domain, "--protocol", "http", "--allow-private-addresses"]);
  const server = await serve(["--data-dir", dataDir, "--port", String(port)]);
  let stopped: Promise<number | null> | undefined;

  const req = async <T>(who: InstanceUser | null, method: string, path: string, body?: unknown): Promise<ApiResponse<T>> => {
    const headers: Record<string, string> = { accept: "application/json" };
    if (who) headers.authorization = `Bearer ${who.token}`;
    if (body !== undefined) headers["content-type"] = "application/json";
    const res = await fetch(server.url + path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
    const text = await res.text();
    let parsed: unknown = text;
    try {
      parsed = text === "" ? text : JSON.parse(text);
    } catch {
      // Not JSON (an HTML error page, say): the text is the body.
    }
    return { status: res.status, body: parsed as T, text };
  };

  const query = <T>(fn: (db: Database.Database) => T): T => {
    const db = new Database(databasePath(dataDir), { readonly: true, fileMustExist: true });
    try {
      // The server holds write transactions briefly; a reader in WAL mode only waits on a checkpoint.
      db.pragma("busy_timeout = 2000");
      return fn(db);
    } finally {
      db.close();
    }
  };

  return {
    domain,
    url: server.url,
    dataDir,
    async user(username) {
      const id = await run(["user", "create", username, "--data-dir", dataDir, "--email", `${username}@example.test`, "--password-stdin"], "correct horse battery\n");
      const token = await run(["token", "create", username, "--data-dir", dataDir, "--scopes", "read write follow push"]);
      return { id, username, token };
    },
    req,
    async api<T>(who: InstanceUser | null, method: string, path: string, body?: unknown): Promise<T> {
      const r = await req<T>(who, method, path, body);
      if (r.status < 200 || r.status >= 300) throw new Error(`${method} ${server.url}${path} → ${r.status}: ${r.text.slice(0, 400)}`);
      return r.body;
    },
    query,
    jobTrouble() {
      return query((db) => {
        const dead = db.prepare("SELECT name, attempts, last_error AS error FROM dead_jobs ORDER BY id DESC LIMIT 8").all();
        const pending = db.prepare("SELECT name, attempts, last_error AS error FROM jobs WHERE last_error IS NOT NULL ORDER BY id DESC LIMIT 8").all();
        return JSON.stringify({ dead, retrying: pending });
      });
    },
    stderr: server.stderr,
    stop() {
      stopped ??= server.stop("SIGTERM").finally(() => rmSync(dataDir, { recursive: true, force: true }));
      return stopped;
    },
  };
}
