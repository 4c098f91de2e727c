import Database from "better-sqlite3";
import { loadConfig } from "../../src/config/config.ts";
import { closeApp, createApp } from "../../src/main.ts";
import { followAccount } from "../../src/services/follows.ts";
import { databasePath, initDataDir } from "../../src/services/init.ts";
import { CLI_APP, ensureBuiltinApp, issueToken } from "../../src/services/tokens.ts";
import { createUser } from "../../src/services/users.ts";

// Shared by the operations tests (backups, crash safety, status): an instance seeded through
// the services before `roost serve` starts on it, and a posting load over HTTP that records
// what the server acknowledged.

export interface SeededUser {
  id: string;
  username: string;
  token: string;
}

/**
 * Initialises `dataDir` for 127.0.0.1:PORT (http, private addresses allowed) and creates the
 * users, each with a token; `follows` pairs [follower, followed] are made as well.
 */
export async function seedInstance(
  dataDir: string,
  port: number,
  usernames: string[],
  follows: [string, string][] = [],
): Promise<Record<string, SeededUser>> {
  initDataDir(dataDir, { domain: `127.0.0.1:${port}`, protocol: "http", allowPrivateAddresses: true });
  const app = createApp(loadConfig(dataDir, { logLevel: "silent", jobsAutorun: false }, {}));
  const out: Record<string, SeededUser> = {};
  const accounts = new Map<string, Awaited<ReturnType<typeof createUser>>["account"]>();
  try {
    const cli = ensureBuiltinApp(app, CLI_APP);
    for (const username of usernames) {
      const { user, account } = await createUser(app, { username, email: `${username}@example.test`, password: "correct horse battery", confirmed: true, approved: true });
      accounts.set(username, account);
      const { token } = issueToken(app, { userId: user.id, applicationId: cli.id, scopes: ["read", "write", "follow", "push"] });
      out[username] = { id: account.id, username, token };
    }
    for (const [a, b] of follows) followAccount(app, accounts.get(a)!, accounts.get(b)!, {});
  } finally {
    await closeApp(app);
  }
  return out;
}

export interface Acked {
  id: string;
  /** The status's ActivityPub id. */
  uri: string;
  text: string;
  /** When the request was sent and when its answer came (ms since epoch). */
  sentAt: number;
  ackedAt: number;
}

export interface Load {
  acked: Acked[];
  /** Requests that got no answer (the server went away) or a non-2xx one. */
  failed: number;
  /** Resolves once `n` posts were acknowledged. */
  until(n: number): Promise<void>;
  stop(): Promise<void>;
}

/**
 * `loops` concurrent posters, each sending POST /api/v1/statuses one after another until
 * stopped or the server stops answering. Bounded: at most `max` posts in all.
 */
export function postingLoad(url: string, tokens: string[], opts: { loops?: number; max?: number; prefix?: string } = {}): Load {
  const acked: Acked[] = [];
  let failed = 0;
  let stopped = false;
  let sent = 0;
  const max = opts.max ?? 2000;
  const waiters: { n: number; resolve: () => void }[] = [];
  const loop = async (k: number) => {
    while (!stopped && sent < max) {
      const n = sent++;
      const text = `${opts.prefix ?? "load"} ${n} from loop ${k}`;
      const sentAt = Date.now();
      try {
        const res = await fetch(`${url}/api/v1/statuses`, {
          method: "POST",
          headers: { authorization: `Bearer ${tokens[n % tokens.length]}`, "content-type": "application/json" },
          body: JSON.stringify({ status: text, visibility: "public" }),
        });
        const body = (await res.json()) as { id?: string; uri?: string };
        if (res.status !== 200 || !body.id) {
          failed++;
          continue;
        }
        acked.push({ id: body.id, uri: body.uri ?? "", text, sentAt, ackedAt: Date.now() });
        for (const w of waiters.filter((w) => acked.length >= w.n)) w.resolve();
      } catch {
        failed++;
        return; // the server went away
      }
    }
  };
  const running = Promise.all(Array.from({ length: opts.loops ?? 4 }, (_, k) => loop(k)));
  return {
    acked,
    get failed() {
      return failed;
    },
    until(n) {
      if (acked.length >= n) return Promise.resolve();
      return new Promise<void>((resolve, reject) => {
        waiters.push({ n, resolve });
        void running.then(() => (acked.length >= n ? resolve() : reject(new Error(`the load ended after ${acked.length} posts (${failed} failed)`))));
      });
    },
    async stop() {
      stopped = true;
      await running;
    },
  };
}

/** Runs `fn` on a read-only connection to a data dir's database; integers come back as BigInt. */
export function queryDb<T>(dataDir: string, fn: (db: Database.Database) => T): T {
  const db = new Database(databasePath(dataDir), { readonly: true, fileMustExist: true });
  try {
    db.pragma("busy_timeout = 5000");
    db.defaultSafeIntegers(true);
    return fn(db);
  } finally {
    db.close();
  }
}
