// Issue 13's budgets: GET /api/v1/admin/accounts over 10,000 accounts with filters, p99 < 50 ms;
// `roost accounts list --json` over the same 10,000 accounts in < 2 s. The staff are real users
// (createUser); the 10,000 accounts are bulk-inserted: 7,000 local users with e-mail addresses
// and sign-in addresses (some pending, silenced, suspended), 3,000 remote accounts.
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import type { App } from "../../src/app.ts";
import { tx } from "../../src/db/db.ts";
import { CLI_APP, ensureBuiltinApp, issueToken } from "../../src/services/tokens.ts";
import { createUser } from "../../src/services/users.ts";
import { recordUserIp } from "../../src/storage/user-ips.ts";
import { median } from "../lib/stats.ts";
import { runLoad } from "../lib/load.ts";
import type { Check, Metric, RunSummary, Scenario, Target, TargetResult } from "../scenario.ts";

const LOCAL = 7000;
const REMOTE = 3000;
const P99_BUDGET_MS = 50;
const CLI_BUDGET_S = 2;
/** Admin traffic is a few staff members at once, not a crowd: the listings run at this concurrency. */
const STAFF_CONNECTIONS = 4;
const root = fileURLToPath(new URL("../..", import.meta.url));

interface Seed {
  token: string;
  total: number;
}

function bulkAccounts(app: App): void {
  const db = app.db;
  const now = app.now();
  const account = db.prepare(
    `INSERT INTO accounts (id, username, domain, display_name, uri, url, inbox_url, suspended_at, suspension_origin, silenced_at, created_at, updated_at)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  const user = db.prepare(
    `INSERT INTO users (id, account_id, email, role_id, confirmed_at, approved, disabled, created_at, updated_at)
     VALUES (?, ?, ?, ?, ?, ?, 0, ?, ?)`,
  );
  tx(db, () => {
    for (let i = 0; i < LOCAL + REMOTE; i++) {
      const id = app.ids.next();
      const remote = i >= LOCAL;
      const name = remote ? `far${i}` : `user${i}`;
      const domain = remote ? `peer${i % 50}.example` : null;
      const uri = remote ? `https://${domain}/users/${name}` : `${app.baseUrl}/users/${name}`;
      const suspended = i % 97 === 0 ? now : null;
      const silenced = i % 53 === 0 ? now : null;
      account.run(BigInt(id), name, domain, `Person ${i}`, uri, uri, remote ? `${uri}/inbox` : null, suspended, suspended ? "local" : null, silenced, now - i * 1000, now);
      if (remote) continue;
      const userId = app.ids.next();
      // A few roles among them; one in 50 awaits approval.
      const role = i % 500 === 0 ? 1n : null;
      user.run(BigInt(userId), BigInt(id), `${name}@mail${i % 20}.example`, role, now, i % 50 === 0 ? 0 : 1, now, now);
      recordUserIp(db, userId, `10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`, now);
    }
  });
}

export const admin: Scenario<Seed> = {
  name: "admin",
  description: `${LOCAL + REMOTE} accounts (${LOCAL} local users, ${REMOTE} remote): the admin account listing with filters, as a moderator (${STAFF_CONNECTIONS} connections), and roost accounts list --json`,
  async seed(app) {
    await createUser(app, { username: "owner", email: "owner@bench.test", password: "bench password 1", role: "owner" });
    const { user } = await createUser(app, { username: "mod", email: "mod@bench.test", password: "bench password 1", role: "moderator" });
    const cli = ensureBuiltinApp(app, CLI_APP);
    const token = issueToken(app, { userId: user.id, applicationId: cli.id, scopes: ["read", "admin:read", "admin:write"] }).token;
    bulkAccounts(app);
    return { token, total: LOCAL + REMOTE + 2 };
  },
  targets: () => [],
  async measure({ url, dataDir, seed, seconds, warmup, trials }) {
    const h = { authorization: `Bearer ${seed.token}` };
    const list: Target[] = [
      { name: "v1 default (local, active)", path: "/api/v1/admin/accounts", headers: h },
      { name: "v1 username prefix", path: "/api/v1/admin/accounts?username=user12", headers: h },
      { name: "v1 e-mail prefix", path: "/api/v1/admin/accounts?email=user69", headers: h },
      { name: "v1 ip range", path: "/api/v1/admin/accounts?ip=10.0.16.0/20", headers: h },
      { name: "v1 staff", path: "/api/v1/admin/accounts?staff=true", headers: h },
      { name: "v2 remote active", path: "/api/v2/admin/accounts?origin=remote&status=active", headers: h },
      { name: "v2 suspended", path: "/api/v2/admin/accounts?status=suspended", headers: h },
      { name: "v2 pending", path: "/api/v2/admin/accounts?status=pending", headers: h },
    ];
    const targets: TargetResult[] = [];
    for (const t of list) {
      if (warmup > 0) await runLoad(url, t, STAFF_CONNECTIONS, warmup);
      const runs = [];
      for (let i = 0; i < trials; i++) runs.push(await runLoad(url, t, STAFF_CONNECTIONS, seconds));
      targets.push({
        name: t.name, method: "GET", path: t.path, status: 200, skipped: false,
        reqPerSec: median(runs.map((r) => r.reqPerSec)), p50Ms: median(runs.map((r) => r.p50Ms)), p99Ms: median(runs.map((r) => r.p99Ms)),
        non2xx: runs.reduce((n, r) => n + r.non2xx, 0), errors: runs.reduce((n, r) => n + r.errors, 0),
        bytesPerReq: median(runs.map((r) => r.bytesPerReq)), maxRssMb: null,
        ...(runs.length > 1 ? { trials: runs.map((r) => ({ reqPerSec: r.reqPerSec, p50Ms: r.p50Ms, p99Ms: r.p99Ms })) } : {}),
      });
    }
    // The CLI as an operator runs it, while the server runs (WAL: readers do not wait): the
    // installed `roost` (bin/roost.mjs) runs the bundle, built here beside the sources so that
    // it finds node_modules; through tsx, as from a checkout without a build, it is recorded too.
    const bundleDir = mkdtempSync(join(root, ".bench-admin-"));
    const timed = (argv: string[]) => {
      const times: number[] = [];
      let rows = 0;
      for (let i = 0; i < trials; i++) {
        const start = performance.now();
        const r = spawnSync(process.execPath, [...argv, "accounts", "list", "--json", "--data-dir", dataDir], {
          cwd: root,
          encoding: "utf8",
          maxBuffer: 64 * 1024 * 1024,
          env: { ...process.env, ROOST_LOG_LEVEL: "warn" },
        });
        times.push((performance.now() - start) / 1000);
        if (r.status !== 0) throw new Error(`roost accounts list failed: ${r.stderr}`);
        rows = r.stdout.trimEnd().split("\n").length;
      }
      return { times, rows };
    };
    let bundled: { times: number[]; rows: number };
    try {
      const { buildBundle } = (await import(pathToFileURL(join(root, "build.mjs")).href)) as { buildBundle(o: { outdir: string; quiet: boolean }): Promise<unknown> };
      await buildBundle({ outdir: bundleDir, quiet: true });
      bundled = timed([join(bundleDir, "roost.mjs")]);
    } finally {
      rmSync(bundleDir, { recursive: true, force: true });
    }
    const sources = timed(["--import", "tsx", join(root, "cli", "roost.ts")]);
    const metrics: Metric[] = [
      { name: "roost accounts list --json", value: median(bundled.times), unit: "s", trials: bundled.times },
      { name: "roost accounts list --json rows", value: bundled.rows, unit: `of ${seed.total}` },
      { name: "the same through tsx (a checkout without a build; recorded)", value: median(sources.times), unit: "s", trials: sources.times },
    ];
    return { targets, metrics };
  },
  checks(summary: RunSummary): Check[] {
    const out: Check[] = summary.targets.map((t) => ({
      name: `${t.name}: p99 < ${P99_BUDGET_MS} ms`,
      ok: t.p99Ms === null ? null : t.p99Ms < P99_BUDGET_MS && t.non2xx === 0,
      detail: t.p99Ms === null ? "not measured" : `${t.p99Ms} ms (p50 ${t.p50Ms} ms, ${Math.round(t.reqPerSec ?? 0)}/s, ${t.bytesPerReq} B, ${t.non2xx} non-2xx)`,
    }));
    const cli = summary.metrics.find((m) => m.name === "roost accounts list --json")?.value ?? null;
    const rows = summary.metrics.find((m) => m.name === "roost accounts list --json rows")?.value ?? null;
    out.push({
      name: `roost accounts list --json over ${LOCAL + REMOTE} accounts < ${CLI_BUDGET_S} s`,
      ok: cli === null ? null : cli < CLI_BUDGET_S && rows === LOCAL + REMOTE + 2,
      detail: cli === null ? "not measured" : `${cli.toFixed(2)} s for ${rows} lines`,
    });
    return out;
  },
};
