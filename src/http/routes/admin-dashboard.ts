// The admin dashboard page (issue 14 part 5): staff with view_dashboard, signed in through the
// web session (/auth/sign_in); others are sent to sign in, or refused (403).
import type { App } from "../../app.ts";
import type { Router } from "../router.ts";
import { makeActor, can } from "../../admin/actor.ts";
import { dashboardDays, humanSize } from "../../admin/metrics.ts";
import { dailySamples } from "../../ops/dashboard-samples.ts";
import { collectStatus } from "../../ops/status.ts";
import { currentSession } from "../../services/web-sessions.ts";
import { browserCsrf, sessionCookieValue } from "../cookies.ts";
import { adminDashboardPage } from "../html/admin-dashboard-page.ts";
import { htmlPage, messagePage, newNonce, redirectTo } from "../html/layout.ts";
import type { Chart } from "../html/svg-chart.ts";
import { signInLocation } from "./oauth/sessions.ts";

const DAY = 86_400_000;
/** Days on the charts, today included. */
export const DASHBOARD_DAYS = 30;

const label = (ms: number) => new Date(ms).toISOString().slice(0, 10);

function charts(daily: ReturnType<typeof dashboardDays>, samples: ReturnType<typeof dailySamples>): Chart[] {
  const labels = daily.map((d) => label(d.day));
  const byDay = new Map(samples.map((s) => [s.day, s]));
  const sampled = (f: (s: (typeof samples)[number]) => number) => daily.map((d) => (byDay.has(d.day) ? f(byDay.get(d.day)!) : 0));
  const count = (n: number) => (Number.isInteger(n) ? String(n) : n.toFixed(1));
  return [
    { id: "chart-signups", title: "Sign-ups", desc: `New accounts per day, ${labels[0]} to ${labels.at(-1)}.`, labels, series: [{ name: "sign-ups", cls: "s1", values: daily.map((d) => d.signUps) }], format: count },
    { id: "chart-active", title: "Active users", desc: "People who used their account each day.", labels, series: [{ name: "active users", cls: "s1", values: daily.map((d) => d.activeUsers) }], format: count },
    { id: "chart-posts", title: "Posts per day", desc: "Posts written on this server each day (boosts apart).", labels, series: [{ name: "posts", cls: "s1", values: daily.map((d) => d.posts) }], format: count },
    {
      id: "chart-federation",
      title: "Federation traffic",
      desc: "Deliveries sent to other servers and activities received in the inbox, per day (sampled hourly).",
      labels,
      series: [
        { name: "deliveries", cls: "s1", values: sampled((s) => s.deliveries) },
        { name: "inbox", cls: "s2", values: sampled((s) => s.inbox) },
      ],
      format: count,
    },
    { id: "chart-queue", title: "Queue depth", desc: "The highest number of waiting jobs seen each day (sampled hourly).", labels, series: [{ name: "jobs", cls: "s1", values: sampled((s) => s.queueDepth) }], format: count },
    {
      id: "chart-storage",
      title: "Storage",
      desc: "Database and media size at the end of each day (sampled hourly; zero where no sample was taken).",
      labels,
      series: [
        { name: "database", cls: "s1", values: sampled((s) => s.databaseBytes) },
        { name: "media", cls: "s2", values: sampled((s) => s.mediaBytes) },
      ],
      format: humanSize,
    },
  ];
}

export function registerAdminDashboardRoutes(app: App, r: Router): void {
  r.get("/admin/dashboard", async (event) => {
    const browser = currentSession(app, sessionCookieValue(event));
    if (!browser) return redirectTo(event, signInLocation("/admin/dashboard"));
    const actor = makeActor(app, browser.user, browser.account, "api");
    if (!can(actor, "view_dashboard")) return messagePage(event, 403, "Not allowed", "Your role does not give access to the dashboard.");
    const now = app.now();
    const last = Math.floor(now / DAY) * DAY;
    const first = last - (DASHBOARD_DAYS - 1) * DAY;
    const status = await collectStatus(app.config, now);
    const mem = process.memoryUsage();
    const csrf = browserCsrf(app, event);
    const nonce = newNonce();
    const html = adminDashboardPage({
      nonce,
      instanceTitle: app.config.title,
      handle: `@${browser.account.username}@${app.config.domain}`,
      csrf: csrf.token,
      status,
      process: { pid: process.pid, uptimeSeconds: Math.round(process.uptime()), rssBytes: mem.rss, heapUsedBytes: mem.heapUsed },
      charts: charts(dashboardDays(app, actor, { first, last }), dailySamples(app, first, last)),
      generatedAt: new Date(now).toISOString().replace("T", " ").slice(0, 16) + " UTC",
      canViewAuditLog: can(actor, "view_audit_log"),
    });
    return htmlPage(event, 200, html, nonce, csrf.setCookie ? [csrf.setCookie] : []);
  });
}
