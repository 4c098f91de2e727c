// Issue 16's CSV import budget: an import of 1,000 follows is enqueued in < 1 s (the upload
// answered, the rows stored, the job queued); the remote accounts are then resolved in the
// background, bounded per domain. Each trial signs in a different user through the web form and
// uploads Mastodon's following_accounts.csv with 1,000 addresses on 50 domains that do not
// resolve (what happens to them afterwards is the job's business, tested elsewhere).
import { loadavg } from "node:os";
import { createUser } from "../../src/services/users.ts";
import { Browser, formWithButton } from "../../test/api/oauth-helpers.ts";
import type { Check, Metric, RunSummary, Scenario } from "../scenario.ts";

const ROWS = 1_000;
const DOMAINS = 50;
const BUDGET_MS = 1_000;
const PASSWORD = "bench password 1";
const USERS = 5;

function followsCsv(): string {
  const lines = ["Account address,Show boosts,Notify on new posts,Languages"];
  for (let i = 0; i < ROWS; i++) lines.push(`user${i}@d${i % DOMAINS}.bench.invalid,true,false,`);
  return lines.join("\n") + "\n";
}

export const csvImport: Scenario<{ users: string[] }> = {
  name: "csv-import",
  description: `CSV import of ${ROWS.toLocaleString("en")} follows on ${DOMAINS} domains through the settings form: time until the upload is answered (rows stored, job queued)`,
  async seed(app) {
    const users: string[] = [];
    for (let i = 0; i < USERS; i++) {
      await createUser(app, { username: `importer${i}`, email: `importer${i}@bench.test`, password: PASSWORD });
      users.push(`importer${i}`);
    }
    return { users };
  },
  targets: () => [],
  async measure({ url, seed, trials }) {
    const csv = followsCsv();
    const times: number[] = [];
    for (const username of seed.users.slice(0, Math.max(1, Math.min(trials, USERS)))) {
      const b = new Browser(url);
      const signIn = await b.signIn(username, PASSWORD);
      if (signIn.status !== 302) throw new Error(`sign-in failed: ${signIn.status}`);
      const fields = formWithButton((await b.fetch("/settings/import-export")).text, "Upload").fields;
      const form = new FormData();
      form.set("authenticity_token", fields.authenticity_token);
      form.set("form_import[type]", "following");
      form.set("form_import[mode]", "merge");
      form.set("form_import[data]", new Blob([csv], { type: "text/csv" }), "following_accounts.csv");
      const cookie = [...b.cookies].map(([k, v]) => `${k}=${v}`).join("; ");
      const started = performance.now();
      const res = await fetch(`${url}/settings/imports`, { method: "POST", body: form, headers: { cookie, accept: "text/html" }, redirect: "manual" });
      await res.text();
      const ms = performance.now() - started;
      if (res.status !== 302) throw new Error(`import upload answered ${res.status}`);
      const page = (await b.fetch("/settings/import-export")).text;
      if (!new RegExp(`of ${ROWS.toLocaleString("en")}|of ${ROWS}\\b`).test(page)) throw new Error(`the import page does not show ${ROWS} rows`);
      times.push(Math.round(ms * 10) / 10);
    }
    const sorted = [...times].sort((a, b) => a - b);
    const metrics: Metric[] = [
      { name: `import of ${ROWS} follows enqueued (median)`, value: sorted[Math.floor(sorted.length / 2)], unit: "ms", trials: times },
      { name: "machine load average (1 min) at the end", value: Math.round(loadavg()[0] * 10) / 10, unit: "runnable" },
    ];
    return { metrics };
  },
  checks(s: RunSummary): Check[] {
    const ms = s.metrics.find((m) => m.name.startsWith("import of"))?.value ?? null;
    return [{ name: `import of ${ROWS.toLocaleString("en")} follows enqueued < ${BUDGET_MS} ms`, ok: ms === null ? null : ms < BUDGET_MS, detail: `${ms} ms` }];
  },
};
