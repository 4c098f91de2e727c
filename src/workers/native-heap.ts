// Gives the server's freed native memory back to the system once a burst of work is over.
//
// Every chunk of an HTTP request body is a malloc'd Buffer on the main thread (Node's parser
// copies it), so a burst of photo uploads passes ~100 MB through glibc's main arena. glibc
// returns the top of that heap only beyond its trim threshold, which grew to twice the largest
// block it ever mmapped (loading the 6 MB bundle makes it ~12 MB), and never returns free
// space between live blocks: after a burst of 20 photos the server kept ~25 MB it no longer
// used (the media bench's idle RSS 96 MB before, 115-124 MB after). Only malloc_trim(0) gives
// it all back, and Node has no call for it: koffi (FFI, prebuilt for each platform) calls it
// from libc. Loaded on first use (~3 MB of RSS); where there is no glibc (musl, macOS,
// Windows) this does nothing.

import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";

type MallocTrim = (pad: number) => number;

/** Process-wide: there is one C heap per process, whatever the number of apps in it. */
let loading: Promise<MallocTrim | null> | undefined;

async function loadMallocTrim(): Promise<MallocTrim | null> {
  if (process.platform !== "linux") return null;
  try {
    const { default: koffi } = await import("koffi");
    return koffi.load("libc.so.6").func("int malloc_trim(size_t pad)") as MallocTrim;
  } catch {
    return null; // no glibc (Alpine's musl has no malloc_trim), or no koffi build for this CPU
  }
}

let collect: ((opts: { type: "minor" | "major" }) => void) | undefined;

/**
 * A V8 collection of the young generation: the body chunks of the last uploads are garbage
 * but still allocated until V8 collects their Buffers, and an idle server may not for
 * minutes. Minor, so it takes a few ms whatever the heap's size. V8's `gc`, exposed in a
 * fresh context (the server runs without --expose-gc).
 */
function collectYoungGarbage(): void {
  if (!collect) {
    setFlagsFromString("--expose-gc");
    collect = runInNewContext("gc") as typeof collect;
  }
  collect!({ type: "minor" });
}

/**
 * Collects young garbage, then returns the free memory of every malloc arena to the system
 * (~50 ms on a loaded 2-core machine, koffi's loading included: call it when idle). Resolves
 * to false where it cannot (no glibc).
 */
export async function trimNativeHeap(): Promise<boolean> {
  const trim = await (loading ??= loadMallocTrim());
  if (!trim) return false;
  collectYoungGarbage();
  trim(0);
  return true;
}
