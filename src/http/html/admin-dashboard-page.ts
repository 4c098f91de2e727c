import { humanSize } from "../../admin/metrics.ts";
import type { StatusReport } from "../../ops/status.ts";
import { signOutForm } from "./auth-pages.ts";
import { esc, layout } from "./layout.ts";
import { type Chart, chartSection } from "./svg-chart.ts";

// /admin/dashboard: the figures of `roost status` and the charts of the last days, for staff
// with view_dashboard. Server-rendered, no script.

export interface DashboardView {
  nonce: string;
  instanceTitle: string;
  handle: string;
  csrf: string;
  status: StatusReport;
  /** This process, when the status report could not reach a server through its admin socket. */
  process: { pid: number; uptimeSeconds: number; rssBytes: number; heapUsedBytes: number };
  charts: Chart[];
  generatedAt: string;
  /** Links to the audit log page when the role may read it. */
  canViewAuditLog?: boolean;
}

const STYLE = `
main{max-width:64rem;margin:1.5rem auto}
.grid2{display:grid;grid-template-columns:repeat(auto-fit,minmax(18rem,1fr));gap:1rem}
.card{border:1px solid #ddd;border-radius:6px;padding:.75rem 1rem;margin:1rem 0}
.card h2{font-size:1.05rem;margin:0 0 .5rem}
dl.figures{display:grid;grid-template-columns:auto 1fr;gap:.15rem 1rem;margin:0}
dl.figures dt{color:#444}
dl.figures dd{margin:0;font-variant-numeric:tabular-nums}
table.figures{border-collapse:collapse;font-size:.9rem;font-variant-numeric:tabular-nums}
table.figures th,table.figures td{padding:.15rem .6rem;border-bottom:1px solid #eee;text-align:right}
table.figures th[scope=row],table.figures caption{text-align:left}
svg.chart{width:100%;height:auto;display:block}
svg.chart .grid{stroke:#ddd;stroke-width:1}
svg.chart .axis{font-size:11px;fill:#555}
svg.chart .line{fill:none;stroke-width:2}
.s1{stroke:#4646d8;fill:#4646d8}
.s2{stroke:#d0590b;fill:#d0590b}
ul.legend{list-style:none;display:flex;gap:1rem;padding:0;margin:.25rem 0;font-size:.9rem}
.swatch{display:inline-block;width:.8rem;height:.8rem;margin-right:.3rem;border-radius:2px;border:3px solid}
header.top{display:flex;justify-content:space-between;align-items:center;gap:1rem;flex-wrap:wrap}
`;

const dur = (s: number) => {
  const d = Math.floor(s / 86400);
  const h = Math.floor((s % 86400) / 3600);
  const m = Math.floor((s % 3600) / 60);
  return d ? `${d} d ${h} h` : h ? `${h} h ${m} min` : `${m} min`;
};

const dl = (rows: [string, string][]) => `<dl class="figures">${rows.map(([k, v]) => `<dt>${esc(k)}</dt><dd>${esc(v)}</dd>`).join("")}</dl>`;
const card = (id: string, title: string, inner: string) => `<section class="card" aria-labelledby="${id}"><h2 id="${id}">${esc(title)}</h2>${inner}</section>`;

function statusCards(v: DashboardView): string {
  const st = v.status;
  const live = st.server;
  const server = live
    ? dl([
        ["Version", live.version],
        ["Uptime", dur(live.uptimeSeconds)],
        ["Memory (RSS)", humanSize(live.rssBytes)],
        ["Event-loop delay p99", `${live.eventLoopDelayMs.p99} ms`],
      ])
    : dl([
        ["Version", st.version],
        ["Uptime", dur(v.process.uptimeSeconds)],
        ["Memory (RSS)", humanSize(v.process.rssBytes)],
      ]);
  const storage = dl([
    ["Database", humanSize(st.database.bytes)],
    ["Write-ahead log", humanSize(st.database.walBytes)],
    ["Media", `${humanSize(st.media.bytes)} (${st.media.files} files)`],
    ...Object.entries(st.media.byFolder).map(([k, u]): [string, string] => [`  ${k}`, humanSize(u.bytes)]),
    ["Storage budget", st.storage.budgetBytes ? `${humanSize(st.storage.usedBytes)} of ${humanSize(st.storage.budgetBytes)} (${st.storage.percentOfBudget}%)` : `${humanSize(st.storage.usedBytes)} used, no budget set`],
  ]);
  const queues = st.jobs.length
    ? `<table class="figures"><caption>Job queues</caption><thead><tr><th scope="col">Queue</th><th scope="col">Due</th><th scope="col">Scheduled</th><th scope="col">Running</th><th scope="col">Retrying</th><th scope="col">Dead</th></tr></thead><tbody>${st.jobs
        .map((q) => `<tr><th scope="row">${esc(q.queue)}</th><td>${q.due}</td><td>${q.scheduled}</td><td>${q.running}</td><td>${q.retrying}</td><td>${q.dead}</td></tr>`)
        .join("")}</tbody></table>`
    : "<p>No jobs waiting.</p>";
  const federation = dl([
    ["Peers failing", String(st.federation.peersFailing)],
    ["Peers unavailable", String(st.federation.peersUnavailable)],
  ]);
  const backups = dl([
    ["Schedule", st.backups.schedule],
    ["Backups kept", `${st.backups.count} (${humanSize(st.backups.bytes)})`],
    ["Last backup", st.backups.last ? new Date(st.backups.last.createdAt).toISOString().replace("T", " ").slice(0, 16) + " UTC" : "never"],
  ]);
  return `<div class="grid2" id="status">${card("h-server", "Server", server)}${card("h-storage", "Storage", storage)}${card("h-queues", "Jobs", queues)}${card("h-federation", "Federation", federation)}${card("h-backups", "Backups", backups)}</div>`;
}

export function adminDashboardPage(v: DashboardView): string {
  const body = `<header class="top"><h1>${esc(v.instanceTitle)}: dashboard</h1><div>Signed in as <strong>${esc(v.handle)}</strong> ${signOutForm(v.csrf, "Sign out", "/admin/dashboard", "link")}</div></header>
<p class="muted">Figures as of ${esc(v.generatedAt)}; charts cover the last ${v.charts[0]?.labels.length ?? 0} days (UTC).${v.canViewAuditLog ? ' <a href="/admin/action_logs">Audit log</a>' : ""}</p>
${statusCards(v)}
<div class="grid2">${v.charts.map(chartSection).join("")}</div>`;
  return layout({ title: `Dashboard - ${v.instanceTitle}`, body, nonce: v.nonce, style: STYLE });
}

