// Issue 10's budgets: a 12-megapixel phone photo from upload to ready; 20 of them at once
// (peak RSS, the home timeline's latency and the event loop's delay meanwhile); and idle RSS
// once the worker pool has shrunk again.
import { loadavg } from "node:os";
import sharp from "sharp";
import type { App } from "../../src/app.ts";
import { createStatus } from "../../src/services/statuses.ts";
import { CLI_APP, ensureBuiltinApp, issueToken } from "../../src/services/tokens.ts";
import { createUser } from "../../src/services/users.ts";
import { sampleRss, treeRssMb } from "../lib/rss.ts";
import { median, quantile } from "../lib/stats.ts";
import type { Check, MeasureContext, Metric, RunSummary, Scenario } from "../scenario.ts";
import { measureVideo, videoChecks } from "./media-video.ts";

const WIDTH = 4000;
const HEIGHT = 3000; // 12 MP
const BURST = 20;
const SEQUENTIAL = 5; // uploads per trial of the one-at-a-time measurement
const READERS = 4; // home timeline readers during the burst...
const READ_EVERY_MS = 25; // ...each starting a request this often (160 requests/s in all)
const FEED_POSTS = 60;

interface Seed {
  token: string;
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * A photo-like 12 MP JPEG (smooth shapes plus sensor noise, ~5 MB at quality 90), stored
 * sideways with EXIF orientation 6 as phones do, so the upload is rotated too.
 */
async function phonePhoto(): Promise<Buffer> {
  const w = 400, h = 300;
  const base = Buffer.alloc(w * h * 3);
  let x = 12345;
  for (let i = 0; i < base.length; i++) {
    x = (x * 1103515245 + 12345) & 0x7fffffff;
    base[i] = x >>> 23;
  }
  const smooth = await sharp(base, { raw: { width: w, height: h, channels: 3 } }).resize(WIDTH, HEIGHT, { kernel: "cubic" }).png({ compressionLevel: 0 }).toBuffer();
  const grain = await sharp({ create: { width: WIDTH, height: HEIGHT, channels: 3, background: "#808080", noise: { type: "gaussian", mean: 128, sigma: 18 } } })
    .png({ compressionLevel: 0 })
    .toBuffer();
  return sharp(smooth).composite([{ input: grain, blend: "overlay" }]).jpeg({ quality: 90 }).withMetadata({ orientation: 6 }).toBuffer();
}

let photo: Buffer | undefined;

export interface UploadFile {
  data: Uint8Array;
  type: string;
  name: string;
}

/** POST /api/v2/media, then GET /api/v1/media/:id until the upload is ready; ms until then. */
export async function uploadUntilReady(url: string, token: string, file?: UploadFile): Promise<number> {
  const started = performance.now();
  const form = new FormData();
  const f = file ?? { data: photo!, type: "image/jpeg", name: "IMG_0001.JPG" };
  form.append("file", new Blob([new Uint8Array(f.data)], { type: f.type }), f.name);
  form.append("description", "A benchmark upload");
  const res = await fetch(`${url}/api/v2/media`, { method: "POST", headers: { authorization: `Bearer ${token}` }, body: form });
  const body = (await res.json()) as { id: string; url: string | null };
  if (res.status !== 200 && res.status !== 202) throw new Error(`upload answered ${res.status}: ${JSON.stringify(body)}`);
  while (res.status === 202) {
    await sleep(50);
    const poll = await fetch(`${url}/api/v1/media/${body.id}`, { headers: { authorization: `Bearer ${token}` } });
    await poll.arrayBuffer();
    if (poll.status === 200) break;
    if (poll.status !== 206) throw new Error(`GET /api/v1/media/:id answered ${poll.status}`);
  }
  return performance.now() - started;
}

export interface Runtime {
  eventLoopDelayMs: { p50: number; p99: number; max: number };
  poolThreads: number;
  memoryMb: { rss: number; heapTotal: number; heapUsed: number; external: number; arrayBuffers: number };
}

export async function runtime(url: string, reset = false): Promise<Runtime> {
  const res = await fetch(`${url}/api/v1/_bench/runtime${reset ? "?reset=1" : ""}`);
  return (await res.json()) as Runtime;
}

/**
 * Reads the home timeline until `done`: `READERS` clients, each starting a request every
 * `READ_EVERY_MS` (people scrolling while others post photos), so the figure is the latency a
 * reader sees, not the server's saturated throughput. The latencies in ms.
 */
export async function readHomeUntil(url: string, token: string, done: Promise<unknown>): Promise<number[]> {
  let finished = false;
  void done.finally(() => (finished = true));
  const latencies: number[] = [];
  await Promise.all(
    Array.from({ length: READERS }, async (_, i) => {
      await sleep((i * READ_EVERY_MS) / READERS);
      while (!finished) {
        const t = performance.now();
        const res = await fetch(`${url}/api/v1/timelines/home`, { headers: { authorization: `Bearer ${token}` } });
        await res.arrayBuffer();
        if (res.status !== 200) throw new Error(`home timeline answered ${res.status}`);
        const took = performance.now() - t;
        latencies.push(took);
        await sleep(Math.max(0, READ_EVERY_MS - took));
      }
    }),
  );
  return latencies;
}

/** Waits for the pool (threads and image process) to end, then the median of a few RSS samples. */
async function idleAfter(url: string, pid: number): Promise<{ rss: number | null; memory: Runtime["memoryMb"] }> {
  const deadline = Date.now() + 120_000;
  while ((await runtime(url)).poolThreads > 0 && Date.now() < deadline) await sleep(1000);
  const shrunk = (await runtime(url)).poolThreads === 0;
  await sleep(2000);
  const samples: number[] = [];
  for (let i = 0; i < 5; i++) {
    const v = treeRssMb(pid);
    if (v !== null) samples.push(v);
    await sleep(200);
  }
  return { rss: shrunk && samples.length ? Math.round(median(samples) * 10) / 10 : null, memory: (await runtime(url)).memoryMb };
}

async function measure(ctx: MeasureContext<Seed>): Promise<{ metrics: Metric[] }> {
  const { url, pid, seed, trials } = ctx;
  photo ??= await phonePhoto();
  const metrics: Metric[] = [
    { name: "test photo size", value: Math.round(photo.length / 1024), unit: "KB" },
    // Other work on the machine slows everything here: the 1-minute load average at the start.
    { name: "machine load average at start", value: Math.round(loadavg()[0] * 10) / 10, unit: "runnable" },
  ];

  // One at a time, after two warm-up uploads (pool start, first sharp load).
  for (let i = 0; i < 2; i++) await uploadUntilReady(url, seed.token);
  const single: number[] = [];
  const perTrial: number[] = [];
  for (let t = 0; t < trials; t++) {
    const times: number[] = [];
    for (let i = 0; i < SEQUENTIAL; i++) times.push(await uploadUntilReady(url, seed.token));
    single.push(...times);
    perTrial.push(median(times));
  }
  metrics.push({ name: "12 MP upload to ready, p50", value: Math.round(median(single)), unit: "ms", trials: perTrial.map(Math.round) });
  metrics.push({ name: "12 MP upload to ready, p90", value: Math.round(quantile(single, 0.9)), unit: "ms" });

  // A burst of 20 uploads at once, nothing else: peak memory of the server and its image
  // process, then idle RSS once the pool has shrunk (poolIdleMs, 30 s by default).
  const rss = sampleRss(pid, 50, true);
  let started = performance.now();
  const alone = await Promise.all(Array.from({ length: BURST }, () => uploadUntilReady(url, seed.token)));
  const peak = rss.stop();
  metrics.push({ name: `burst of ${BURST}: all ready after`, value: Math.round(performance.now() - started), unit: "ms" });
  metrics.push({ name: `burst of ${BURST}: slowest upload to ready`, value: Math.round(Math.max(...alone)), unit: "ms" });
  metrics.push({ name: `burst of ${BURST}: peak RSS (server + image process)`, value: peak === null ? null : Math.round(peak), unit: "MB" });
  const idle = await idleAfter(url, pid);
  metrics.push({ name: "idle RSS after the burst, pool shrunk", value: idle.rss, unit: "MB" });
  metrics.push({ name: "after the burst: V8 heap total", value: idle.memory.heapTotal, unit: "MB" });
  metrics.push({ name: "after the burst: external (Buffers)", value: idle.memory.external, unit: "MB" });

  // The same burst while people read their home timeline: its latency and the event loop's delay.
  await runtime(url, true);
  started = performance.now();
  const burst = Promise.all(Array.from({ length: BURST }, () => uploadUntilReady(url, seed.token)));
  const [, reads] = await Promise.all([burst, readHomeUntil(url, seed.token, burst)]);
  const loop = (await runtime(url)).eventLoopDelayMs;
  metrics.push({ name: "burst with readers: all ready after", value: Math.round(performance.now() - started), unit: "ms" });
  metrics.push({ name: "burst: home timeline p50", value: Math.round(median(reads) * 10) / 10, unit: "ms" });
  metrics.push({ name: "burst: home timeline p99", value: Math.round(quantile(reads, 0.99) * 10) / 10, unit: "ms" });
  metrics.push({ name: "burst: home timeline reads", value: reads.length, unit: "requests" });
  metrics.push({ name: "burst: event loop delay p99", value: loop.p99, unit: "ms" });
  metrics.push({ name: "burst: event loop delay max", value: loop.max, unit: "ms" });
  metrics.push({ name: "machine load average at the end", value: Math.round(loadavg()[0] * 10) / 10, unit: "runnable" });
  metrics.push(...(await measureVideo(url, seed.token, trials)));
  return { metrics };
}

export function budget(name: string, m: Metric | undefined, max: number): Check {
  if (m?.value == null) return { name, ok: null, detail: "not measured" };
  return { name, ok: m.value < max, detail: `${m.value} ${m.unit}${m.trials ? ` (trials: ${m.trials.join(", ")})` : ""}` };
}

export const media: Scenario<Seed> = {
  name: "media",
  description: `${WIDTH}x${HEIGHT} JPEG uploads: one at a time, ${BURST} at once while the home timeline is read, idle RSS after; then 10 s 720p video (remuxed and transcoded)`,
  async seed(app: App) {
    const cli = ensureBuiltinApp(app, CLI_APP);
    const reader = await createUser(app, { username: "reader", email: "reader@bench.test", password: "bench password 1" });
    const { token } = issueToken(app, { userId: reader.user.id, applicationId: cli.id, scopes: ["read", "write", "follow"] });
    // The reader's home: its own posts (so the page is full without follow set-up).
    for (let i = 0; i < FEED_POSTS; i++) {
      createStatus(app, reader, { text: `Post number ${i} about #birds and the weather` }, { applicationId: cli.id });
    }
    await app.jobs.drain();
    return { token };
  },
  targets: () => [],
  measure,
  checks(s: RunSummary): Check[] {
    const find = (name: string) => s.metrics.find((m) => m.name === name);
    const loop = find("burst: event loop delay p99");
    return [
      budget("12 MP JPEG upload to ready p50 < 600 ms", find("12 MP upload to ready, p50"), 600),
      budget(`${BURST} uploads at once: peak RSS < 400 MB`, find(`burst of ${BURST}: peak RSS (server + image process)`), 400),
      budget("home timeline p99 < 50 ms during the burst", find("burst: home timeline p99"), 50),
      { name: "event loop delay p99 during the burst (recorded)", ok: loop?.value == null ? null : true, detail: loop?.value == null ? "not measured" : `${loop.value} ms` },
      budget("idle RSS after the burst (pool shrunk) < 100 MB", find("idle RSS after the burst, pool shrunk"), 100),
      budget("idle RSS before any upload < 100 MB", s.idleRssMb === null ? undefined : { name: "idle", value: Math.round(s.idleRssMb * 10) / 10, unit: "MB" }, 100),
      ...videoChecks(s),
    ];
  },
};
