import { esc } from "./layout.ts";

// Server-rendered line charts for staff pages: plain SVG (no script, no style attributes, so
// the pages' CSP holds), each with a <title> and <desc> for screen readers and a table of the
// same figures beside it.

export interface ChartSeries {
  name: string;
  /** One value per label, in order. */
  values: number[];
  /** CSS class of the line (colours are in the page's stylesheet). */
  cls: string;
}

export interface Chart {
  id: string;
  title: string;
  /** What the chart shows, in words (read out instead of the picture). */
  desc: string;
  labels: string[];
  series: ChartSeries[];
  /** How a value is written in labels and the table (bytes, counts). */
  format?: (v: number) => string;
}

const W = 640;
const H = 200;
const PAD = { left: 56, right: 12, top: 12, bottom: 28 };

/** A "nice" upper bound for the axis: 1, 2 or 5 times a power of ten. */
function niceMax(v: number): number {
  if (v <= 0) return 1;
  const p = 10 ** Math.floor(Math.log10(v));
  for (const m of [1, 2, 5, 10]) if (m * p >= v) return m * p;
  return 10 * p;
}

const round = (n: number) => Math.round(n * 10) / 10;

export function lineChartSvg(c: Chart): string {
  const fmt = c.format ?? ((v: number) => String(v));
  const max = niceMax(Math.max(0, ...c.series.flatMap((s) => s.values)));
  const n = c.labels.length;
  const plotW = W - PAD.left - PAD.right;
  const plotH = H - PAD.top - PAD.bottom;
  const x = (i: number) => round(PAD.left + (n <= 1 ? plotW / 2 : (i * plotW) / (n - 1)));
  const y = (v: number) => round(PAD.top + plotH - (v / max) * plotH);
  const grid = [0, 0.5, 1]
    .map((f) => {
      const gy = y(max * f);
      return `<line class="grid" x1="${PAD.left}" x2="${W - PAD.right}" y1="${gy}" y2="${gy}"/><text class="axis" x="${PAD.left - 6}" y="${gy + 4}" text-anchor="end">${esc(fmt(max * f))}</text>`;
    })
    .join("");
  const xLabels =
    n === 0
      ? ""
      : [0, n - 1]
          .filter((i, k, a) => a.indexOf(i) === k)
          .map((i) => `<text class="axis" x="${x(i)}" y="${H - 8}" text-anchor="${i === 0 ? "start" : "end"}">${esc(c.labels[i])}</text>`)
          .join("");
  const lines = c.series
    .map((s) => {
      const pts = s.values.map((v, i) => `${x(i)},${y(v)}`).join(" ");
      const dots = s.values.map((v, i) => `<circle class="pt ${esc(s.cls)}" cx="${x(i)}" cy="${y(v)}" r="2.5"><title>${esc(`${c.labels[i]}: ${fmt(v)} ${s.name}`)}</title></circle>`).join("");
      return `<g class="series" data-series="${esc(s.name)}" data-points="${s.values.length}"><polyline class="line ${esc(s.cls)}" points="${pts}"/>${dots}</g>`;
    })
    .join("");
  const titleId = `${c.id}-title`;
  const descId = `${c.id}-desc`;
  return `<svg class="chart" id="${esc(c.id)}" viewBox="0 0 ${W} ${H}" role="img" aria-labelledby="${titleId} ${descId}" xmlns="http://www.w3.org/2000/svg">
<title id="${titleId}">${esc(c.title)}</title><desc id="${descId}">${esc(c.desc)}</desc>${grid}${xLabels}${lines}</svg>`;
}

/** The same figures as a table (the fallback for the chart, and what a screen reader can walk). */
export function chartTable(c: Chart): string {
  const fmt = c.format ?? ((v: number) => String(v));
  const head = `<tr><th scope="col">Day</th>${c.series.map((s) => `<th scope="col">${esc(s.name)}</th>`).join("")}</tr>`;
  const rows = c.labels.map((l, i) => `<tr><th scope="row">${esc(l)}</th>${c.series.map((s) => `<td>${esc(fmt(s.values[i] ?? 0))}</td>`).join("")}</tr>`).join("");
  return `<table class="figures"><caption>${esc(c.title)}</caption><thead>${head}</thead><tbody>${rows}</tbody></table>`;
}

/** A chart with its legend and its table (folded). */
export function chartSection(c: Chart): string {
  const legend =
    c.series.length > 1 ? `<ul class="legend">${c.series.map((s) => `<li><span class="swatch ${esc(s.cls)}"></span>${esc(s.name)}</li>`).join("")}</ul>` : "";
  return `<section class="card" aria-labelledby="${esc(c.id)}-h"><h2 id="${esc(c.id)}-h">${esc(c.title)}</h2>${lineChartSvg(c)}${legend}
<details><summary>Table</summary>${chartTable(c)}</details></section>`;
}
