import { createUser } from "../../src/services/users.ts";
import { CLI_APP, ensureBuiltinApp, issueToken } from "../../src/services/tokens.ts";
import { relativeThroughput } from "../lib/stats.ts";
import type { Check, RunSummary, Scenario } from "../scenario.ts";

const USERS = ["alice", "bob", "carol", "dave"];

/**
 * The first budgets: an authenticated read must keep at least half the throughput of a static
 * response from the same HTTP stack, and the idle server must stay under 100 MB.
 */
export const foundation: Scenario<{ token: string }> = {
  name: "foundation",
  description: "auth + account read vs a static baseline; idle and loaded RSS",
  async seed(app) {
    const cli = ensureBuiltinApp(app, CLI_APP);
    let token = "";
    for (const username of USERS) {
      const { user } = await createUser(app, { username, email: `${username}@bench.test`, password: "bench password 1" });
      const issued = issueToken(app, { userId: user.id, applicationId: cli.id, scopes: ["read", "write", "follow", "push"] });
      if (username === USERS[0]) token = issued.token;
    }
    return { token };
  },
  targets({ token }) {
    return [
      { name: "baseline (static JSON)", path: "/api/v1/_bench/static", baseline: true },
      { name: "verify_credentials", path: "/api/v1/accounts/verify_credentials", headers: { authorization: `Bearer ${token}` } },
      { name: "instance v2", path: "/api/v2/instance" },
    ];
  },
  checks(s: RunSummary): Check[] {
    const base = s.targets.find((t) => t.name.startsWith("baseline"));
    const vc = s.targets.find((t) => t.name === "verify_credentials");
    const out: Check[] = [];
    const ratio = relativeThroughput(vc, base);
    if (ratio === null || !base?.reqPerSec || !vc?.reqPerSec) {
      out.push({ name: "verify_credentials >= 50% of baseline req/s", ok: null, detail: `not measured (status ${vc?.status ?? "?"})` });
    } else {
      out.push({
        name: "verify_credentials >= 50% of baseline req/s",
        ok: ratio >= 0.5,
        detail: `${Math.round(vc.reqPerSec)} / ${Math.round(base.reqPerSec)}: ${(ratio * 100).toFixed(0)}%${vc.trials ? " (median of the trials' ratios)" : ""}`,
      });
    }
    out.push({
      name: "idle RSS < 100 MB",
      ok: s.idleRssMb === null ? null : s.idleRssMb < 100,
      detail: s.idleRssMb === null ? "no /proc on this system" : `${s.idleRssMb.toFixed(1)} MB`,
    });
    return out;
  },
};
