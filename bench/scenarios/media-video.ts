// The media scenario's video rows (issue 10 part 3): a 10 s 720p H.264/AAC phone clip, which
// is only remuxed, and the same clip as an iPhone shoots it today (HEVC in QuickTime), which is
// transcoded to H.264 in the server's one transcode slot: upload to ready, one at a time, then
// a burst of both kinds while people read their home timeline (its p99 is the budget:
// the request thread stays free while ffmpeg works in child processes).
import { execFile } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { median, quantile } from "../lib/stats.ts";
import type { Check, Metric, RunSummary } from "../scenario.ts";
import { budget, readHomeUntil, runtime, type UploadFile, uploadUntilReady } from "./media.ts";

const SECONDS = 10;
const SIZE = "1280x720";
/** The burst: clips of each kind at once (transcodes queue for the one slot). */
const BURST_EACH = 3;

const run = promisify(execFile);

/** A 10 s 720p30 clip with moving, noisy content (~5 Mbit/s as phones record) and a tone. */
async function clip(codec: "h264" | "hevc"): Promise<UploadFile> {
  const ffmpeg: string = createRequire(import.meta.url)("@ffmpeg-installer/ffmpeg").path;
  const dir = mkdtempSync(join(tmpdir(), "roost-bench-video-"));
  const ext = codec === "h264" ? "mp4" : "mov";
  const out = join(dir, `clip.${ext}`);
  const video =
    codec === "h264"
      ? ["-c:v", "libx264", "-preset", "veryfast", "-pix_fmt", "yuv420p"]
      : ["-c:v", "libx265", "-preset", "ultrafast", "-tag:v", "hvc1", "-x265-params", "log-level=error"];
  try {
    await run(ffmpeg, [
      "-nostdin", "-v", "error",
      "-f", "lavfi", "-i", `testsrc2=size=${SIZE}:rate=30:duration=${SECONDS}`,
      "-f", "lavfi", "-i", `sine=frequency=440:sample_rate=48000:duration=${SECONDS}`,
      "-vf", "noise=alls=12:allf=t",
      ...video, "-b:v", "5M", "-maxrate", "5M", "-bufsize", "10M",
      "-c:a", "aac", "-b:a", "128k", "-shortest", "-y", out,
    ]);
    const data = readFileSync(out);
    return { data, type: codec === "h264" ? "video/mp4" : "video/quicktime", name: codec === "h264" ? "VID_0001.mp4" : "IMG_0001.MOV" };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

let clips: { remux: UploadFile; transcode: UploadFile } | undefined;

export async function measureVideo(url: string, token: string, trials: number): Promise<Metric[]> {
  clips ??= { remux: await clip("h264"), transcode: await clip("hevc") };
  const { remux, transcode } = clips;
  const metrics: Metric[] = [
    { name: "video: 10 s 720p H.264 clip size", value: Math.round(remux.data.length / 1024), unit: "KB" },
    { name: "video: 10 s 720p HEVC clip size", value: Math.round(transcode.data.length / 1024), unit: "KB" },
    { name: "video: machine load average at start", value: Math.round(loadavg()[0] * 10) / 10, unit: "runnable" },
  ];
  await uploadUntilReady(url, token, remux); // warm-up: ffmpeg's first start, the poster's image worker

  for (const [label, file] of [["H.264 (remuxed)", remux], ["HEVC (transcoded)", transcode]] as const) {
    const times: number[] = [];
    for (let t = 0; t < trials; t++) times.push(await uploadUntilReady(url, token, file));
    metrics.push({ name: `video: 10 s 720p ${label} upload to ready, p50`, value: Math.round(median(times)), unit: "ms", trials: times.map(Math.round) });
  }

  await runtime(url, true);
  const started = performance.now();
  const burst = Promise.all([
    ...Array.from({ length: BURST_EACH }, () => uploadUntilReady(url, token, remux)),
    ...Array.from({ length: BURST_EACH }, () => uploadUntilReady(url, token, transcode)),
  ]);
  const [times, reads] = await Promise.all([burst, readHomeUntil(url, token, burst)]);
  const loop = (await runtime(url)).eventLoopDelayMs;
  metrics.push({ name: `video burst (${BURST_EACH} H.264 + ${BURST_EACH} HEVC): all ready after`, value: Math.round(performance.now() - started), unit: "ms" });
  metrics.push({ name: "video burst: slowest upload to ready", value: Math.round(Math.max(...times)), unit: "ms" });
  metrics.push({ name: "video burst: home timeline p50", value: Math.round(median(reads) * 10) / 10, unit: "ms" });
  metrics.push({ name: "video burst: home timeline p99", value: Math.round(quantile(reads, 0.99) * 10) / 10, unit: "ms" });
  metrics.push({ name: "video burst: home timeline reads", value: reads.length, unit: "requests" });
  metrics.push({ name: "video burst: event loop delay p99", value: loop.p99, unit: "ms" });
  metrics.push({ name: "video: machine load average at the end", value: Math.round(loadavg()[0] * 10) / 10, unit: "runnable" });
  return metrics;
}

export function videoChecks(s: RunSummary): Check[] {
  const find = (name: string) => s.metrics.find((m) => m.name === name);
  const recorded = (name: string): Check => {
    const m = find(name);
    return { name: `${name} (recorded)`, ok: m?.value == null ? null : true, detail: m?.value == null ? "not measured" : `${m.value} ${m.unit}` };
  };
  return [
    budget("home timeline p99 < 50 ms during the video burst", find("video burst: home timeline p99"), 50),
    recorded("video: 10 s 720p H.264 (remuxed) upload to ready, p50"),
    recorded("video: 10 s 720p HEVC (transcoded) upload to ready, p50"),
  ];
}
