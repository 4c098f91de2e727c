import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createServer as createNetServer } from "node:net";
import type { App } from "../../src/app.ts";
import { type Config, loadConfig } from "../../src/config/config.ts";
import { closeApp, createApp, startServer } from "../../src/main.ts";
import { createLog } from "../../src/lib/log.ts";
import { initDataDir, type InitOptions } from "../../src/services/init.ts";
import { createUser, type CreateUserInput } from "../../src/services/users.ts";
import { CLI_APP, ensureBuiltinApp, issueToken } from "../../src/services/tokens.ts";
import type { Account } from "../../src/storage/accounts.ts";
import type { User } from "../../src/storage/users.ts";

export interface TestUser {
  /** Account id (what the API calls the account's id). */
  id: string;
  username: string;
  token: string;
  account: Account;
  user: User;
}

export interface Res<T = any> {
  status: number;
  headers: Headers;
  body: T;
  text: string;
}

export interface TestServer {
  url: string;
  app: App;
  dataDir: string;
  /** Creates a confirmed user through the same service as `roost user create`, with a token. */
  user(username: string, opts?: Partial<CreateUserInput> & { scopes?: string[] }): Promise<TestUser>;
  /** JSON API call that must succeed (2xx); returns the parsed body. */
  api<T = any>(who: TestUser | string | null, method: string, path: string, body?: unknown): Promise<T>;
  /** Any request; never throws on status. `body` objects are sent as JSON unless FormData/URLSearchParams. */
  req<T = any>(who: TestUser | string | null, method: string, path: string, body?: unknown, headers?: Record<string, string>): Promise<Res<T>>;
  drainJobs(): Promise<void>;
  close(): Promise<void>;
  /** Every registered route (method, path pattern), for the route-walk test. */
  routes: { method: string; path: string }[];
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createNetServer();
    s.once("error", reject);
    s.listen(0, "127.0.0.1", () => {
      const a = s.address();
      const port = typeof a === "object" && a ? a.port : 0;
      s.close(() => resolve(port));
    });
  });
}

export interface StartOptions {
  init?: Partial<InitOptions>;
  config?: Partial<Config>;
  /** Receives the server's log lines (at `config.logLevel`, silent unless set) instead of stderr. */
  logTo?: (line: string) => void;
}

/**
 * A real server on an ephemeral loopback port with a fresh data dir, initialised like
 * `roost init --protocol http --allow-private-addresses`. Jobs do not run on their own:
 * tests call drainJobs() so side effects are deterministic.
 */
export async function startTestServer(opts: StartOptions = {}): Promise<TestServer> {
  // The domain holds the port, so the port is chosen before the server listens; another
  // process may take it in between (tests run in parallel): then start over on a new one.
  for (let attempt = 1; ; attempt++) {
    try {
      return await startOnFreePort(opts);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== "EADDRINUSE" || attempt >= 5) throw e;
    }
  }
}

async function startOnFreePort(opts: StartOptions): Promise<TestServer> {
  const dataDir = mkdtempSync(join(tmpdir(), "roost-test-"));
  const port = await freePort();
  initDataDir(dataDir, {
    domain: `127.0.0.1:${port}`,
    protocol: "http",
    allowPrivateAddresses: true,
    title: "Roost Test",
    ...opts.init,
  });
  // Recorded remote documents keep their old publication dates: no pruning by age unless asked.
  const config = loadConfig(dataDir, { logLevel: "silent", jobsAutorun: false, poolIdleMs: 2000, backupSchedule: "off", remoteContentRetentionDays: 0, emailDnsServers: "off", ...opts.config }, {});
  const app = createApp(config, opts.logTo ? { log: createLog(config.logLevel, opts.logTo) } : {});
  let running;
  try {
    running = await startServer(app, { host: "127.0.0.1", port });
  } catch (e) {
    await closeApp(app);
    rmSync(dataDir, { recursive: true, force: true });
    throw e;
  }
  const url = running.url;

  const tokenOf = (who: TestUser | string | null) => (who === null ? null : typeof who === "string" ? who : who.token);

  const req = async <T>(who: TestUser | string | null, method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<Res<T>> => {
    const h: Record<string, string> = { accept: "application/json", ...headers };
    const token = tokenOf(who);
    if (token) h.authorization = `Bearer ${token}`;
    let payload: BodyInit | undefined;
    if (body instanceof FormData || body instanceof URLSearchParams || typeof body === "string") payload = body as BodyInit;
    else if (body !== undefined) {
      payload = JSON.stringify(body);
      h["content-type"] ??= "application/json";
    }
    const res = await fetch(url + path, { method, headers: h, body: payload, redirect: "manual" });
    // A streaming response (SSE) never ends: its status and headers are the answer.
    if ((res.headers.get("content-type") ?? "").startsWith("text/event-stream")) {
      await res.body?.cancel();
      return { status: res.status, headers: res.headers, body: "" as T, text: "" };
    }
    const text = await res.text();
    let parsed: unknown = text;
    if ((res.headers.get("content-type") ?? "").includes("json") && text !== "") {
      try {
        parsed = JSON.parse(text);
      } catch {
        parsed = text;
      }
    }
    return { status: res.status, headers: res.headers, body: parsed as T, text };
  };

  return {
    url,
    app,
    dataDir,
    async user(username, o = {}) {
      const { scopes, ...input } = o;
      const { user, account } = await createUser(app, {
        username,
        email: `${username}@example.test`,
        password: "correct horse battery",
        ...input,
      });
      const cli = ensureBuiltinApp(app, CLI_APP);
      const { token } = issueToken(app, { userId: user.id, applicationId: cli.id, scopes: scopes ?? ["read", "write", "follow", "push"] });
      return { id: account.id, username, token, account, user };
    },
    async api<T = any>(who: TestUser | string | null, method: string, path: string, body?: unknown): Promise<T> {
      const r = await req<T>(who, method, path, body);
      if (r.status < 200 || r.status >= 300) {
        throw new Error(`${method} ${path} → ${r.status}: ${r.text.slice(0, 500)}`);
      }
      return r.body;
    },
    req,
    drainJobs: () => app.jobs.drain(),
    routes: running.http.router.routes,
    async close() {
      await running.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
