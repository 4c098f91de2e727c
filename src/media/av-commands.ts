import { type AudioStream, type MediaProbe, rateValue, type VideoStream } from "./probe.ts";

// The ffmpeg command lines of video, gifv and audio processing, after Mastodon's
// MediaAttachment styles and Paperclip::Transcoder: web-playable video (H.264 in yuv420p,
// AAC or no sound, in MP4) is only remuxed; everything else becomes H.264/AAC MP4 at a bitrate
// that keeps the file within the upload limit. Metadata (GPS position, device, dates) never
// reaches the stored file (`-map_metadata -1`).

/** Mastodon's MAX_VIDEO_MATRIX_LIMIT: larger videos are refused (3840x2160). */
export const VIDEO_MAX_PIXELS = 8_294_400;
/** Mastodon's MAX_VIDEO_FRAME_RATE. */
export const VIDEO_MAX_FRAME_RATE = 120;
/** Mastodon's GIF limit (Attachmentable): GIFs above 1280x720 per frame are refused. */
export const GIF_MAX_PIXELS = 921_600;
/**
 * A transcoded video is scaled down to this area (1920x1080): the encoder's memory and time on
 * a small server stay bounded. Web-playable uploads are kept at their size.
 */
export const TRANSCODE_MAX_PIXELS = 2_073_600;
/** Mastodon's BITS_PER_PIXEL ("High" H.264) and audio bitrate. */
const BITS_PER_PIXEL = 0.11;
const AUDIO_BITRATE = 192_000;
/** Lowest video bitrate, whatever the duration (a long video under a small size limit). */
const MIN_VIDEO_BITRATE = 100_000;
/** Threads per run (decoder and encoder): two cores, and memory that does not grow with the machine. */
const THREADS = "2";

/** Size of the picture as a player shows it. */
export function displaySize(v: VideoStream): { width: number; height: number } {
  return v.rotation === 90 || v.rotation === 270 ? { width: v.height, height: v.width } : { width: v.width, height: v.height };
}

/** Why a video is refused before any work (Mastodon's wording), or undefined. */
export function videoLimitError(probe: MediaProbe, v: VideoStream, opts: { maxSeconds: number; gif: boolean }): string | undefined {
  const { width, height } = displaySize(v);
  if (opts.gif && width * height > GIF_MAX_PIXELS) return `${width}x${height} GIF files are not supported`;
  if (width * height > VIDEO_MAX_PIXELS) return `${width}x${height} videos are not supported`;
  const fps = Math.floor(rateValue(v.frameRate));
  if (fps > VIDEO_MAX_FRAME_RATE) return `${fps}fps videos are not supported`;
  if (probe.duration !== null && probe.duration > opts.maxSeconds) return `Videos longer than ${opts.maxSeconds} seconds are not supported`;
  return undefined;
}

/** Whether browsers play the file as it is (Mastodon's VIDEO_PASSTHROUGH_OPTIONS), so it is only remuxed. */
export function webPlayable(probe: MediaProbe, v: VideoStream, audio: AudioStream | null): boolean {
  return (
    probe.format.split(",").includes("mp4") &&
    v.codec === "h264" &&
    v.pixFmt === "yuv420p" &&
    (audio === null || audio.codec === "aac") &&
    // A rotated stream is turned upright by transcoding: meta then gives the shown size.
    v.rotation === 0
  );
}

/** The transcoded picture: within TRANSCODE_MAX_PIXELS, even sides (H.264 with yuv420p needs them). */
export function transcodeSize(v: VideoStream): { width: number; height: number; scaled: boolean } {
  const { width, height } = displaySize(v);
  const scale = Math.min(1, Math.sqrt(TRANSCODE_MAX_PIXELS / (width * height)));
  const even = (n: number) => Math.max(2, Math.floor((n * scale) / 2) * 2);
  return { width: even(width), height: even(height), scaled: scale < 1 };
}

/** Video bitrate as Mastodon's: "High" quality for the size, but never past the size limit. */
export function videoBitrate(size: { width: number; height: number }, duration: number | null, maxBytes: number): number {
  const desired = Math.floor(size.width * size.height * 30 * BITS_PER_PIXEL);
  const fitting = Math.floor((maxBytes * 8) / Math.max(duration ?? 1, 1)) - AUDIO_BITRATE;
  return Math.max(MIN_VIDEO_BITRATE, Math.min(desired, fitting));
}

const COMMON = ["-nostdin", "-v", "error", "-threads", THREADS];
const STRIP = ["-map_metadata", "-1", "-map_chapters", "-1"];

/** Web-playable video: streams copied into a fresh MP4 without metadata, index first. */
export function remuxVideoArgs(input: string, output: string, opts: { sound: boolean; maxSeconds: number }): string[] {
  return [
    ...COMMON,
    "-i", input,
    "-map", "0:v:0", ...(opts.sound ? ["-map", "0:a:0"] : []),
    "-c", "copy", "-t", String(opts.maxSeconds),
    ...STRIP, "-movflags", "+faststart", "-f", "mp4", "-y", output,
  ];
}

/** Everything else: H.264 (veryfast, yuv420p) and AAC in MP4; gifv has no sound. */
export function transcodeVideoArgs(
  input: string,
  output: string,
  opts: { v: VideoStream; sound: boolean; duration: number | null; maxSeconds: number; maxBytes: number },
): string[] {
  const size = transcodeSize(opts.v);
  const bitrate = videoBitrate(size, opts.duration, opts.maxBytes);
  // Not scaled: crop an odd last pixel rather than resample the picture (as Mastodon).
  const filter = size.scaled ? `scale=${size.width}:${size.height}` : `crop=${size.width}:${size.height}:0:0`;
  return [
    ...COMMON,
    "-i", input,
    "-map", "0:v:0", ...(opts.sound ? ["-map", "0:a:0", "-c:a", "aac", "-b:a", String(AUDIO_BITRATE)] : ["-an"]),
    "-vf", filter,
    "-c:v", "libx264", "-preset", "veryfast", "-pix_fmt", "yuv420p",
    "-b:v", String(bitrate), "-maxrate", String(bitrate + AUDIO_BITRATE), "-bufsize", String(bitrate * 5),
    "-t", String(opts.maxSeconds),
    ...STRIP, "-movflags", "+faststart", "-f", "mp4", "-y", output,
  ];
}

/** The preview: the first frame (of the stored video, upright), at most 640 on each side, as PNG. */
export function posterArgs(input: string, output: string, stream = "0:v:0"): string[] {
  return [
    ...COMMON,
    "-i", input,
    "-map", stream, "-frames:v", "1",
    "-vf", "scale='min(640,iw)':'min(640,ih)':force_original_aspect_ratio=decrease",
    "-f", "image2", "-c:v", "png", "-y", output,
  ];
}

export interface AudioOutput {
  ext: string;
  contentType: string;
  args: string[];
}

/**
 * Audio: MP3, Ogg (Vorbis, Opus) and M4A (AAC) are kept as they are (remuxed without their
 * tags); anything else (WAV, FLAC, ...) becomes MP3 (LAME VBR quality 2, as Mastodon).
 */
export function audioCommand(probe: MediaProbe, audio: AudioStream, input: string, outputPrefix: string): AudioOutput {
  const formats = probe.format.split(",");
  const keep = (ext: string, contentType: string, muxer: string, extra: string[] = []): AudioOutput => {
    const output = `${outputPrefix}original.${ext}`;
    return { ext, contentType, args: [...COMMON, "-i", input, "-map", "0:a:0", "-c:a", "copy", ...STRIP, ...extra, "-f", muxer, "-y", output] };
  };
  if (formats.includes("mp3") && audio.codec === "mp3") return keep("mp3", "audio/mpeg", "mp3", ["-id3v2_version", "0"]);
  if (formats.includes("ogg") && (audio.codec === "vorbis" || audio.codec === "opus")) return keep("ogg", "audio/ogg", "ogg");
  if (formats.includes("m4a") && audio.codec === "aac") return keep("m4a", "audio/mp4", "mp4", ["-movflags", "+faststart"]);
  const output = `${outputPrefix}original.mp3`;
  return {
    ext: "mp3",
    contentType: "audio/mpeg",
    args: [...COMMON, "-i", input, "-map", "0:a:0", "-c:a", "libmp3lame", "-q:a", "2", ...STRIP, "-id3v2_version", "0", "-f", "mp3", "-y", output],
  };
}
