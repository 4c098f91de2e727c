import { type ChildProcess, spawn } from "node:child_process";
import { accessSync, constants } from "node:fs";
import { createRequire } from "node:module";
import { arch, platform, setPriority } from "node:os";
import { dirname, join } from "node:path";
import type { App } from "../app.ts";

// ffmpeg and ffprobe: video, audio and gifv processing (services/media-av.ts). They are
// optional at run time: a build without them (the single executable of issue 14, or
// `ffmpegPath: "none"`) accepts images only, and the instance advertises only those
// (media/upload-types.ts). Each run is a child process at a lower CPU priority, never work on
// the event loop; one run at a time per server (a transcode takes both cores of a small VPS).

export interface FfmpegTools {
  ffmpeg: string;
  ffprobe: string;
}

/** The binary an npm package ships for this platform (`@ffmpeg-installer/linux-x64/ffmpeg`). */
function packagedBinary(scope: string, name: string): string | undefined {
  try {
    // Resolved beside this module (or the bundle); a single executable has no node_modules.
    const require = createRequire(import.meta.url);
    const pkg = require.resolve(`${scope}/${platform()}-${arch()}/package.json`);
    return join(dirname(pkg), platform() === "win32" ? `${name}.exe` : name);
  } catch {
    return undefined;
  }
}

function executable(path: string | undefined): string | undefined {
  if (!path) return undefined;
  try {
    accessSync(path, constants.X_OK);
    return path;
  } catch {
    return undefined;
  }
}

const TOOLS = "media:ffmpeg-tools";

/**
 * The ffmpeg and ffprobe this server runs, or undefined when either is missing: the
 * capability check behind video, audio and gifv. Config `ffmpegPath`/`ffprobePath`: "" for
 * the npm packages' binaries, "none" for no video processing, else a path. Checked once.
 */
export function ffmpegTools(app: App): FfmpegTools | undefined {
  if (app.cache.has(TOOLS)) return app.cache.get(TOOLS) as FfmpegTools | undefined;
  const pick = (configured: string, scope: string, name: string) =>
    configured === "none" ? undefined : executable(configured === "" ? packagedBinary(scope, name) : configured);
  const ffmpeg = pick(app.config.ffmpegPath, "@ffmpeg-installer", "ffmpeg");
  const ffprobe = pick(app.config.ffprobePath, "@ffprobe-installer", "ffprobe");
  const tools = ffmpeg && ffprobe ? { ffmpeg, ffprobe } : undefined;
  if (!tools && app.config.ffmpegPath !== "none") {
    // A packaged binary without its executable bit (npm skipped the package's chmod script) lands here too.
    app.log.warn("ffmpeg or ffprobe not found or not executable: video and audio uploads are refused", { ffmpeg: ffmpeg ?? null, ffprobe: ffprobe ?? null });
  }
  app.cache.set(TOOLS, tools);
  return tools;
}

/** A run that failed because of its input (exit status, or too slow): the file is refused. */
export class MediaToolError extends Error {
  override name = "MediaToolError";
}

/** `nice` of ffmpeg runs, as the image worker process: request handling comes first. */
const NICENESS = 10;
/** Kept of a run's stderr, for the log. */
const STDERR_KEEP = 4096;

interface ToolState {
  /** Runs waiting for the slot. */
  waiting: (() => void)[];
  busy: boolean;
  children: Set<ChildProcess>;
  closed: boolean;
}

const STATE = "media:ffmpeg-state";
function state(app: App): ToolState {
  let s = app.cache.get(STATE) as ToolState | undefined;
  if (!s) app.cache.set(STATE, (s = { waiting: [], busy: false, children: new Set(), closed: false }));
  return s;
}

/**
 * Runs `work` once no other media tool work runs on this server: at most one transcode at a
 * time, in the order asked, whatever the job queue's concurrency.
 */
export async function withMediaToolSlot<T>(app: App, work: () => Promise<T>): Promise<T> {
  const s = state(app);
  if (s.busy) await new Promise<void>((resolve) => s.waiting.push(resolve));
  else s.busy = true;
  try {
    return await work();
  } finally {
    const next = s.waiting.shift();
    if (next) next();
    else s.busy = false;
  }
}

export interface RunOptions {
  /** Killed (and the input refused) after this long. */
  timeoutMs: number;
  /** Most stdout bytes kept (ffprobe's JSON); 0 ignores stdout. */
  maxStdout?: number;
}

/**
 * Runs a tool to completion: resolves with its stdout, rejects with MediaToolError when it
 * exits non-zero or overruns its time (the input's fault), or with a plain Error when it could
 * not start or the server is closing (not the input's fault: the job retries).
 */
export function runMediaTool(app: App, bin: string, args: string[], opts: RunOptions): Promise<string> {
  const s = state(app);
  if (s.closed) return Promise.reject(new Error("media tools stopped"));
  return new Promise((resolve, reject) => {
    const child = spawn(bin, args, { stdio: ["ignore", opts.maxStdout ? "pipe" : "ignore", "pipe"], env: {} });
    s.children.add(child);
    try {
      if (child.pid) setPriority(child.pid, NICENESS);
    } catch {
      // Not permitted here: it runs at the server's priority.
    }
    const out: Buffer[] = [];
    let outBytes = 0;
    let err = "";
    let timedOut = false;
    child.stdout?.on("data", (b: Buffer) => {
      if (outBytes < (opts.maxStdout ?? 0)) out.push(b);
      outBytes += b.length;
    });
    child.stderr?.on("data", (b: Buffer) => {
      if (err.length < STDERR_KEEP) err += b.toString("utf8").slice(0, STDERR_KEEP - err.length);
    });
    const timer = setTimeout(() => {
      timedOut = true;
      child.kill("SIGKILL");
    }, opts.timeoutMs);
    child.on("error", (e) => {
      clearTimeout(timer);
      s.children.delete(child);
      reject(new Error(`could not run ${bin}: ${e.message}`));
    });
    child.on("close", (code, signal) => {
      clearTimeout(timer);
      s.children.delete(child);
      if (code === 0 && outBytes <= (opts.maxStdout ?? 0)) return resolve(Buffer.concat(out).toString("utf8"));
      if (s.closed) return reject(new Error("media tools stopped"));
      const why = timedOut ? `took longer than ${opts.timeoutMs} ms` : code === 0 ? "wrote too much" : `exited with ${signal ?? code}`;
      reject(new MediaToolError(`${why}: ${err.trim().split("\n").slice(-3).join(" | ")}`));
    });
  });
}

/** Ends running tools (server shutdown): their uploads stay queued and their jobs retry later. */
export function stopMediaTools(app: App): void {
  const s = app.cache.get(STATE) as ToolState | undefined;
  if (!s) return;
  s.closed = true;
  for (const c of s.children) c.kill("SIGKILL");
}
