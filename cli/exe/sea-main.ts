import { homedir } from "node:os";
import { isAbsolute, join, sep } from "node:path";
import { getAsset, getRawAsset } from "node:sea";
import { pathToFileURL } from "node:url";
import { ensureRuntime, type RuntimeManifest, runtimeCacheRoot } from "./runtime-cache.ts";

// Entry of the single executable (build-exe.mjs compiles this file to CommonJS, as Node's SEA
// requires). It puts the runtime files in place (runtime-cache.ts) and imports the bundle
// from there; the bundle then runs exactly as `node dist/roost.mjs` would.

function home(): string | undefined {
  try {
    return homedir();
  } catch {
    return undefined; // no $HOME and no passwd entry (a bare container)
  }
}

async function main(): Promise<void> {
  const manifest = JSON.parse(getAsset("runtime.json", "utf8")) as RuntimeManifest;
  let dir: string;
  try {
    const root = runtimeCacheRoot(process.env, home(), process.getuid?.() ?? 0);
    // getRawAsset: the payloads as they lie in the executable, no copy (read only when needed).
    ({ dir } = ensureRuntime({ manifest, root, payload: (asset) => new Uint8Array(getRawAsset(asset) as ArrayBuffer) }));
  } catch (e) {
    process.stderr.write(`error: cannot prepare roost's runtime files: ${(e as Error).message}\n`);
    process.exit(1);
  }
  // A child the server forked to run one of the bundle's worker entries (child_process.fork
  // starts process.execPath, which is this executable, with the entry's path): run that entry
  // rather than the CLI. Only with an IPC channel, and only files of the runtime directory.
  const forked = process.argv[2];
  if (process.send && forked && isAbsolute(forked) && forked.startsWith(dir + sep) && forked.endsWith(".mjs")) {
    process.argv.splice(1, 1);
    await import(pathToFileURL(forked).href);
    return;
  }
  await import(pathToFileURL(join(dir, manifest.entry)).href);
}

void main();
