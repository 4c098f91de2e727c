import type { App } from "../app.ts";
import { ffmpegTools, MediaToolError, runMediaTool } from "./ffmpeg.ts";

// What ffprobe says about a file, reduced to what processing decides on, as Mastodon's
// VideoMetadataExtractor reads it (format duration and bit_rate; the first video and audio
// streams' codec, pixel format, size and frame rates).

export interface VideoStream {
  codec: string;
  pixFmt: string | null;
  /** As stored; `rotation` says how a player turns it. */
  width: number;
  height: number;
  /** avg_frame_rate, reduced ("30/1", "30000/1001"); null when unknown ("0/0"). */
  frameRate: string | null;
  /** Degrees a player rotates the picture by (display matrix or `rotate` tag): 0, 90, 180, 270. */
  rotation: number;
  /** Packets read (with countPackets): the frames of a GIF. */
  packets: number | null;
}

export interface AudioStream {
  codec: string;
  channels: number | null;
}

export interface MediaProbe {
  /** ffprobe's format name, e.g. "mov,mp4,m4a,3gp,3g2,mj2", "matroska,webm", "mp3", "ogg". */
  format: string;
  duration: number | null;
  bitrate: number | null;
  /** The first video stream that is not cover art. */
  video: VideoStream | null;
  audio: AudioStream | null;
  /** An embedded picture (an MP3's or M4A's cover), as a stream index. */
  coverArt: number | null;
}

/** ffprobe's JSON, as far as it is read. */
interface RawProbe {
  format?: { format_name?: string; duration?: string; bit_rate?: string };
  streams?: {
    index?: number;
    codec_type?: string;
    codec_name?: string;
    pix_fmt?: string;
    width?: number;
    height?: number;
    avg_frame_rate?: string;
    r_frame_rate?: string;
    channels?: number;
    nb_read_packets?: string;
    disposition?: { attached_pic?: number };
    tags?: { rotate?: string };
    side_data_list?: { rotation?: number }[];
  }[];
}

const gcd = (a: number, b: number): number => (b === 0 ? a : gcd(b, a % b));

/** "60/2" → "30/1" (Ruby's Rational, which Mastodon's meta shows); null for 0/0 and junk. */
export function reduceRate(raw: string | undefined): string | null {
  const m = /^(\d+)\/(\d+)$/.exec(raw ?? "");
  if (!m) return null;
  const [n, d] = [Number(m[1]), Number(m[2])];
  if (n === 0 || d === 0 || !Number.isSafeInteger(n) || !Number.isSafeInteger(d)) return null;
  const g = gcd(n, d);
  return `${n / g}/${d / g}`;
}

export const rateValue = (rate: string | null): number => {
  if (!rate) return 0;
  const [n, d] = rate.split("/").map(Number);
  return n / d;
};

const num = (raw: string | undefined): number | null => {
  const n = raw === undefined ? NaN : Number(raw);
  return Number.isFinite(n) && n >= 0 ? n : null;
};

function rotationOf(s: NonNullable<RawProbe["streams"]>[number]): number {
  const fromMatrix = s.side_data_list?.find((d) => typeof d.rotation === "number")?.rotation;
  const deg = fromMatrix ?? Number(s.tags?.rotate ?? 0);
  return Number.isFinite(deg) ? (((Math.round(deg / 90) * 90) % 360) + 360) % 360 : 0;
}

export function parseProbe(json: string): MediaProbe | undefined {
  let raw: RawProbe;
  try {
    raw = JSON.parse(json) as RawProbe;
  } catch {
    return undefined;
  }
  if (!raw.format?.format_name) return undefined;
  const streams = raw.streams ?? [];
  const cover = streams.find((s) => s.codec_type === "video" && s.disposition?.attached_pic === 1);
  const v = streams.find((s) => s.codec_type === "video" && s.disposition?.attached_pic !== 1);
  const a = streams.find((s) => s.codec_type === "audio");
  return {
    format: raw.format.format_name,
    duration: num(raw.format.duration),
    bitrate: num(raw.format.bit_rate),
    video:
      v && v.codec_name && v.width && v.height
        ? {
            codec: v.codec_name,
            pixFmt: v.pix_fmt ?? null,
            width: v.width,
            height: v.height,
            frameRate: reduceRate(v.avg_frame_rate) ?? reduceRate(v.r_frame_rate),
            rotation: rotationOf(v),
            packets: num(v.nb_read_packets),
          }
        : null,
    audio: a && a.codec_name ? { codec: a.codec_name, channels: a.channels ?? null } : null,
    coverArt: cover?.index ?? null,
  };
}

/**
 * Probes a file; undefined when ffprobe cannot read it (not a media file, truncated before its
 * index...). `countPackets` also counts the video packets (cheap: no decoding), for GIF frames.
 */
export async function probeMedia(app: App, path: string, opts: { countPackets?: boolean } = {}): Promise<MediaProbe | undefined> {
  const tools = ffmpegTools(app);
  if (!tools) throw new Error("ffprobe is not available");
  const args = ["-v", "error", "-print_format", "json", "-show_format", "-show_streams"];
  if (opts.countPackets) args.push("-count_packets");
  try {
    return parseProbe(await runMediaTool(app, tools.ffprobe, [...args, "-i", path], { timeoutMs: 60_000, maxStdout: 1 << 20 }));
  } catch (err) {
    if (err instanceof MediaToolError) return undefined;
    throw err;
  }
}
