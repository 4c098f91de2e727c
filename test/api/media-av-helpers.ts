// Video and audio files for the media tests, made on the spot by the ffmpeg the npm package
// ships (nothing binary is checked in), and ffprobe to check what the server stored.
import { execFile } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";

const run = promisify(execFile);
const require = createRequire(import.meta.url);
export const FFMPEG: string = require("@ffmpeg-installer/ffmpeg").path;
export const FFPROBE: string = require("@ffprobe-installer/ffprobe").path;

/**
 * Runs ffmpeg with lavfi test sources and returns the file it wrote. `inputs` are ffmpeg input
 * arguments (`-f lavfi -i testsrc=...`), `output` the encoding arguments; `ext` names the muxer.
 */
export async function makeMedia(inputs: string[], output: string[], ext: string): Promise<Buffer> {
  const dir = mkdtempSync(join(tmpdir(), "roost-av-"));
  const file = join(dir, `out.${ext}`);
  try {
    await run(FFMPEG, ["-nostdin", "-v", "error", ...inputs, ...output, "-y", file]);
    return readFileSync(file);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const picture = (w: number, h: number, seconds: number, rate = 25) => ["-f", "lavfi", "-i", `testsrc=size=${w}x${h}:rate=${rate}:duration=${seconds}`];
const tone = (seconds: number) => ["-f", "lavfi", "-i", `sine=frequency=440:sample_rate=44100:duration=${seconds}`];

/** H.264 + AAC in MP4, yuv420p: what browsers play as it is (remuxed, not transcoded). */
export const h264Mp4 = (w = 320, h = 240, seconds = 2, rate = 25) =>
  makeMedia([...picture(w, h, seconds, rate), ...tone(seconds)], ["-c:v", "libx264", "-preset", "ultrafast", "-pix_fmt", "yuv420p", "-c:a", "aac", "-shortest"], "mp4");

/** VP8 + Vorbis in WebM: transcoded to H.264/AAC MP4. */
export const vp8Webm = (w = 320, h = 180, seconds = 2) =>
  makeMedia([...picture(w, h, seconds), ...tone(seconds)], ["-c:v", "libvpx", "-deadline", "realtime", "-b:v", "300k", "-c:a", "libvorbis", "-shortest"], "webm");

/** An MP4 without sound: stored as gifv. */
export const silentMp4 = (w = 160, h = 120, seconds = 1) =>
  makeMedia(picture(w, h, seconds), ["-c:v", "libx264", "-preset", "ultrafast", "-pix_fmt", "yuv420p"], "mp4");

/** MPEG-4 Part 2 video with MP3 sound in a QuickTime MOV: transcoded. */
export const mpeg4Mov = (w = 176, h = 144, seconds = 1) =>
  makeMedia([...picture(w, h, seconds), ...tone(seconds)], ["-c:v", "mpeg4", "-c:a", "libmp3lame", "-shortest"], "mov");

/** Theora + Vorbis in Ogg (video/ogg): transcoded. */
export const theoraOgg = (w = 160, h = 120, seconds = 1) =>
  makeMedia([...picture(w, h, seconds), ...tone(seconds)], ["-c:v", "libtheora", "-c:a", "libvorbis", "-shortest"], "ogv");

export const mp3 = (seconds = 2) => makeMedia(tone(seconds), ["-c:a", "libmp3lame", "-b:a", "64k"], "mp3");
/** An MP3 with cover art (an ID3 APIC picture, 200x100): the cover becomes the preview. */
export const mp3WithCover = (seconds = 1) =>
  makeMedia(
    [...tone(seconds), ...picture(200, 100, 0.04)],
    ["-map", "0:a", "-map", "1:v", "-c:a", "libmp3lame", "-c:v", "png", "-frames:v", "1", "-disposition:v", "attached_pic", "-id3v2_version", "3"],
    "mp3",
  );
export const oggVorbis = (seconds = 1) => makeMedia(tone(seconds), ["-c:a", "libvorbis"], "ogg");
export const wav = (seconds = 1) => makeMedia(tone(seconds), ["-c:a", "pcm_s16le"], "wav");
export const flac = (seconds = 1) => makeMedia(tone(seconds), ["-c:a", "flac"], "flac");
export const m4a = (seconds = 1) => makeMedia(tone(seconds), ["-c:a", "aac", "-f", "ipod"], "m4a");
export const opusWebm = (seconds = 1) => makeMedia(tone(seconds), ["-c:a", "libopus"], "webm");
export const aacAdts = (seconds = 1) => makeMedia(tone(seconds), ["-c:a", "aac", "-f", "adts"], "aac");
export const threeGp = (seconds = 1) =>
  makeMedia([...picture(176, 144, seconds), ...tone(seconds)], ["-c:v", "libx264", "-preset", "ultrafast", "-pix_fmt", "yuv420p", "-c:a", "aac", "-ar", "16000", "-shortest"], "3gp");

export interface Probed {
  format: string;
  duration: number;
  video?: { codec: string; pixFmt: string; width: number; height: number; frameRate: string };
  audio?: { codec: string };
  /** Streams of any kind (cover art included). */
  streams: number;
  /** Every frame decoded without an error (ffmpeg -f null). */
  plays: boolean;
}

/** What ffprobe reads from served bytes, and whether ffmpeg decodes them to the end without an error. */
export async function probeBytes(bytes: Uint8Array): Promise<Probed> {
  const dir = mkdtempSync(join(tmpdir(), "roost-probe-"));
  const file = join(dir, "in");
  try {
    writeFileSync(file, bytes);
    const { stdout } = await run(FFPROBE, ["-v", "error", "-print_format", "json", "-show_format", "-show_streams", file]);
    const j = JSON.parse(stdout);
    const v = j.streams.find((s: any) => s.codec_type === "video" && s.disposition?.attached_pic !== 1);
    const a = j.streams.find((s: any) => s.codec_type === "audio");
    const decoded = await run(FFMPEG, ["-nostdin", "-v", "error", "-xerror", "-i", file, "-f", "null", "-"]).then(
      (r) => r.stderr.trim() === "",
      () => false,
    );
    return {
      format: j.format.format_name,
      duration: Number(j.format.duration),
      video: v ? { codec: v.codec_name, pixFmt: v.pix_fmt, width: v.width, height: v.height, frameRate: v.avg_frame_rate } : undefined,
      audio: a ? { codec: a.codec_name } : undefined,
      streams: j.streams.length,
      plays: decoded,
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
