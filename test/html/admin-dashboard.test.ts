// The admin dashboard page (issue 14 part 5) in a real browser: staff sign in through the form,
// the page shows the figures of `roost status` and six SVG charts of 30 daily points, and no
// CSP violation or script error is reported. Others are sent to sign in, or refused.
import assert from "node:assert/strict";
import { test } from "node:test";
import { sampleDashboard } from "../../src/ops/dashboard-samples.ts";
import { ROOST_VERSION } from "../../src/version.ts";
import { hasChromium, openBrowser, signInWithForm } from "../helpers/browser.ts";
import { startTestServer } from "../helpers/server.ts";

const DAY = 86_400_000;

test("staff see the dashboard's figures and charts; others are sent to sign in or refused", { skip: !hasChromium() && "no /usr/bin/chromium" }, async (t) => {
  const s = await startTestServer();
  t.after(() => s.close());
  const today = Math.floor(Date.now() / DAY) * DAY;
  // Two days ago: two sign-ups and a post; today: the owner, a post, a sample of the figures.
  s.app.now = () => today - 2 * DAY + 3_600_000;
  const ann = await s.user("ann");
  await s.user("ben");
  await s.api(ann, "POST", "/api/v1/statuses", { status: "two days ago" });
  s.app.now = () => Date.now();
  await s.user("boss", { role: "owner" });
  await s.api(ann, "POST", "/api/v1/statuses", { status: "today" });
  const sample = sampleDashboard(s.app);
  assert.ok(sample.databaseBytes > 0);

  // Without a session: to the sign-in form, and back after it.
  const anonymous = await fetch(`${s.url}/admin/dashboard`, { redirect: "manual" });
  assert.deepEqual([anonymous.status, anonymous.headers.get("location")], [302, "/auth/sign_in?return_to=%2Fadmin%2Fdashboard"]);

  const b = await openBrowser();
  t.after(() => b.close());
  const { page } = b;
  await page.goto(`${s.url}/admin/dashboard`);
  assert.match(page.url(), /\/auth\/sign_in\?return_to=/);
  await signInWithForm(page, "boss", "correct horse battery");
  assert.equal(new URL(page.url()).pathname, "/admin/dashboard");
  assert.match(await page.title(), /^Dashboard - /);

  // The figures of `roost status`.
  const status = await page.locator("#status").innerText();
  for (const want of ["Server", ROOST_VERSION, "Database", "Write-ahead log", "Media", "Storage budget", "Jobs", "Peers failing", "Backups", "never"]) {
    assert.ok(status.includes(want), `status shows ${want}:\n${status}`);
  }

  // Six charts, each an accessible SVG with 30 points per line, drawn (non-zero size).
  const charts = page.locator("svg.chart");
  assert.equal(await charts.count(), 6);
  const ids = await charts.evaluateAll((els) => els.map((e) => e.id));
  assert.deepEqual(ids, ["chart-signups", "chart-active", "chart-posts", "chart-federation", "chart-queue", "chart-storage"]);
  for (const id of ids) {
    const chart = page.locator(`#${id}`);
    assert.equal(await chart.getAttribute("role"), "img");
    assert.ok(((await chart.locator("title").first().textContent()) ?? "").length > 0, `${id} has a title`);
    assert.ok(((await chart.locator("desc").textContent()) ?? "").length > 0, `${id} has a desc`);
    const series = chart.locator("g.series");
    for (let i = 0; i < (await series.count()); i++) {
      assert.equal(await series.nth(i).getAttribute("data-points"), "30", id);
      assert.equal(await series.nth(i).locator("circle.pt").count(), 30, `${id}: 30 points drawn`);
    }
    const box = await chart.boundingBox();
    assert.ok(box && box.width > 200 && box.height > 50, `${id} is drawn: ${JSON.stringify(box)}`);
  }
  assert.equal(await page.locator("#chart-federation g.series").count(), 2);
  assert.equal(await page.locator("#chart-storage g.series").count(), 2);

  // The values behind the charts, in their tables: sign-ups two days ago and today, posts.
  const rowOf = async (chart: string, day: number) => {
    const label = new Date(day).toISOString().slice(0, 10);
    return (await page.locator(`section:has(#${chart}) table tr:has(th:text-is("${label}")) td`).allTextContents()).join(",");
  };
  assert.equal(await rowOf("chart-signups", today - 2 * DAY), "2");
  assert.equal(await rowOf("chart-signups", today), "1");
  assert.equal(await rowOf("chart-posts", today - 2 * DAY), "1");
  assert.equal(await rowOf("chart-posts", today), "1");
  assert.equal(await rowOf("chart-queue", today), String(sample.queueDepth));
  // The point of today on the sign-ups line is higher than an empty day's.
  const ys = await page.locator("#chart-signups circle.pt").evaluateAll((els) => els.map((e) => Number(e.getAttribute("cy"))));
  assert.ok(ys[29] < ys[0] && ys[27] < ys[29], `two sign-ups above one above none: ${ys.slice(26)}`);

  assert.deepEqual(b.errors(), [], `console:\n${b.console.join("\n")}`);

  // A user without view_dashboard, signed in: 403.
  await b.context.clearCookies();
  await page.goto(`${s.url}/auth/sign_in`);
  await signInWithForm(page, "ann", "correct horse battery");
  const refused = await page.goto(`${s.url}/admin/dashboard`);
  assert.equal(refused?.status(), 403);
  assert.match(await page.locator("[role=alert]").innerText(), /does not give access to the dashboard/);
  assert.deepEqual(b.errors(), [`response 403: ${s.url}/admin/dashboard`]);
});
