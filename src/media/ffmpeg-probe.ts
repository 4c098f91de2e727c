import { spawnSync } from "node:child_process";

// ffmpeg is an optional companion of roost (it is not inside the executable): with it, video
// and audio can be transcoded; without it, only uploads that browsers already play are
// accepted. This finds out which, once per process.

export interface FfmpegInfo {
  available: boolean;
  /** First line of `ffmpeg -version`, when available. */
  version?: string;
}

let probed: FfmpegInfo | undefined;

/** Runs `ffmpeg -version` from PATH (or `command`) once and remembers the answer. */
export function probeFfmpeg(command = "ffmpeg"): FfmpegInfo {
  if (probed && command === "ffmpeg") return probed;
  const r = spawnSync(command, ["-hide_banner", "-version"], { encoding: "utf8", timeout: 5000, stdio: ["ignore", "pipe", "ignore"] });
  const info: FfmpegInfo = r.status === 0 ? { available: true, version: r.stdout.split("\n")[0]?.trim() } : { available: false };
  if (command === "ffmpeg") probed = info;
  return info;
}

export const hasFfmpeg = (): boolean => probeFfmpeg().available;
