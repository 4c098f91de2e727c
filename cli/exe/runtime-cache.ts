import { createHash } from "node:crypto";
import { chmodSync, closeSync, lstatSync, mkdirSync, openSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync, writeSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve, sep } from "node:path";
import { brotliDecompressSync } from "node:zlib";

// The single executable's runtime files (the bundle, the worker entry and the packages with
// native addons: better-sqlite3, sharp with libvips, piscina) travel inside it as a few
// brotli-compressed payloads, one per group of files (so the build can say what each weighs). They are written once into a private cache directory named by
// version and content hash, and loaded from there: native addons can only be loaded from a
// file, and sharp finds libvips through its rpath ($ORIGIN/../../sharp-libvips-linux-x64/lib),
// so the files keep their node_modules layout.
//
// Every file is checked against its SHA-256 when written. Each later start compares each
// file's inode, size, mtime and ctime with the record made then (a write or chmod always moves
// ctime, which no user can set back) and hashes again only a file that changed; a file that no
// longer matches its hash makes the whole directory be written again.

export const RUNTIME_FORMAT = "roost-runtime";

export interface RuntimeGroup {
  name: string;
  /** The SEA asset holding the group's files, concatenated and brotli-compressed. */
  asset: string;
  bytes: number;
  compressedBytes: number;
}

export interface RuntimeFile {
  /** Relative path with forward slashes, e.g. "node_modules/better-sqlite3/lib/index.js". */
  path: string;
  group: string;
  /** Offset of the file in its group's uncompressed payload. */
  offset: number;
  size: number;
  /** 0o755 or 0o644: written read-only for everyone (0o555 / 0o444). */
  mode: number;
  sha256: string;
}

export interface RuntimeManifest {
  format: typeof RUNTIME_FORMAT;
  /** roost's version. */
  version: string;
  /** Content hash of the files (hex): names the cache directory with the version. */
  id: string;
  /** The ES module to import, relative to the runtime directory. */
  entry: string;
  groups: RuntimeGroup[];
  files: RuntimeFile[];
}

const STAMP = ".roost-runtime-stamp.json";

type Fingerprint = [size: number, ino: number, mtimeMs: number, ctimeMs: number];

const fingerprint = (p: string): Fingerprint => {
  const s = statSync(p);
  return [s.size, s.ino, s.mtimeMs, s.ctimeMs];
};

const sha256 = (data: Uint8Array) => createHash("sha256").update(data).digest("hex");

/**
 * Where runtime directories live: $ROOST_CACHE_DIR, else systemd's $CACHE_DIRECTORY (set by
 * CacheDirectory= in a unit), else $XDG_CACHE_HOME/roost, else ~/.cache/roost, else
 * <tmpdir>/roost-cache-<uid>.
 */
export function runtimeCacheRoot(env: NodeJS.ProcessEnv, home: string | undefined, uid: number): string {
  if (env.ROOST_CACHE_DIR) return resolve(env.ROOST_CACHE_DIR);
  if (env.CACHE_DIRECTORY) return resolve(env.CACHE_DIRECTORY.split(":")[0]);
  if (env.XDG_CACHE_HOME) return resolve(env.XDG_CACHE_HOME, "roost");
  if (home && home !== "/" && home !== "/nonexistent") return resolve(home, ".cache", "roost");
  return join(tmpdir(), `roost-cache-${uid}`);
}

export class RuntimeCacheError extends Error {
  override name = "RuntimeCacheError";
}

/** A directory we own that nobody else may write to (a shared one could swap a native file). */
function checkPrivate(dir: string): void {
  const s = lstatSync(dir);
  if (!s.isDirectory()) throw new RuntimeCacheError(`${dir} is not a directory`);
  const uid = process.getuid?.();
  if (uid !== undefined && s.uid !== uid) throw new RuntimeCacheError(`${dir} belongs to another user (uid ${s.uid}); set ROOST_CACHE_DIR to a directory of your own`);
  if ((s.mode & 0o022) !== 0) throw new RuntimeCacheError(`${dir} is writable by other users; make it private (chmod 700) or set ROOST_CACHE_DIR`);
}

function readStamp(dir: string): Record<string, Fingerprint> | undefined {
  try {
    const s = JSON.parse(readFileSync(join(dir, STAMP), "utf8")) as { files?: Record<string, Fingerprint> };
    return s.files && typeof s.files === "object" ? s.files : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Whether `dir` holds exactly the manifest's files. Unchanged files (same fingerprint as when
 * they were verified) are trusted; any other is hashed. Refreshes the stamp after a re-hash
 * that passed (a copy with `cp -a` keeps contents but not inodes).
 */
export function verifyRuntimeDir(dir: string, manifest: RuntimeManifest): boolean {
  const stamp = readStamp(dir);
  if (!stamp) return false;
  let rehashed = false;
  const fresh: Record<string, Fingerprint> = {};
  for (const f of manifest.files) {
    const p = join(dir, ...f.path.split("/"));
    let fp: Fingerprint;
    try {
      fp = fingerprint(p);
    } catch {
      return false;
    }
    const known = stamp[f.path];
    if (!known || known.some((v, i) => v !== fp[i])) {
      if (fp[0] !== f.size || sha256(readFileSync(p)) !== f.sha256) return false;
      rehashed = true;
    }
    fresh[f.path] = fp;
  }
  if (rehashed) {
    try {
      writeFileSync(join(dir, STAMP), JSON.stringify({ id: manifest.id, files: fresh }));
    } catch {
      // read-only cache: hashing again next time is correct, only slower
    }
  }
  return true;
}

/** Removes leftovers of extractions whose process is gone (a crash or a kill mid-write). */
function removeStaleTemporaries(root: string): void {
  for (const name of readdirSync(root)) {
    const m = /^\.(?:tmp|old)-(\d+)-/.exec(name);
    if (!m) continue;
    let alive = true;
    try {
      process.kill(Number(m[1]), 0);
    } catch (e) {
      alive = (e as NodeJS.ErrnoException).code === "EPERM";
    }
    if (!alive || Number(m[1]) === process.pid) rmSync(join(root, name), { recursive: true, force: true });
  }
}

function writeRuntimeDir(target: string, manifest: RuntimeManifest, payload: (asset: string) => Uint8Array): void {
  const groups = new Map<string, Uint8Array>();
  for (const g of manifest.groups) groups.set(g.name, brotliDecompressSync(payload(g.asset)));
  for (const f of manifest.files) {
    const data = groups.get(f.group)?.subarray(f.offset, f.offset + f.size) ?? new Uint8Array(0);
    if (data.length !== f.size || sha256(data) !== f.sha256) {
      throw new RuntimeCacheError(`the executable is damaged: ${f.path} does not match its checksum (download it again)`);
    }
    const p = join(target, ...f.path.split("/"));
    if (!resolve(p).startsWith(resolve(target) + sep)) throw new RuntimeCacheError(`bad path in the runtime manifest: ${f.path}`);
    mkdirSync(dirname(p), { recursive: true, mode: 0o700 });
    const fd = openSync(p, "wx", 0o600);
    try {
      for (let at = 0; at < data.length; ) at += writeSync(fd, data, at, data.length - at);
    } finally {
      closeSync(fd);
    }
    chmodSync(p, f.mode & 0o111 ? 0o555 : 0o444);
  }
  const files: Record<string, Fingerprint> = {};
  for (const f of manifest.files) files[f.path] = fingerprint(join(target, ...f.path.split("/")));
  writeFileSync(join(target, STAMP), JSON.stringify({ id: manifest.id, files }), { mode: 0o600 });
}

export interface EnsureRuntimeOptions {
  manifest: RuntimeManifest;
  /** A compressed payload by asset name; read only when the directory has to be written. */
  payload: (asset: string) => Uint8Array;
  root: string;
}

/**
 * Returns the runtime directory for the manifest, writing it first when it is missing or does
 * not verify. Safe against concurrent starts: each writes into its own temporary directory and
 * renames it into place; the loser of the race uses the winner's.
 */
export function ensureRuntime(o: EnsureRuntimeOptions): { dir: string; extracted: boolean } {
  const { manifest, root } = o;
  if (manifest.format !== RUNTIME_FORMAT || !/^[0-9a-f]{64}$/.test(manifest.id)) throw new RuntimeCacheError("the executable's runtime manifest is damaged");
  mkdirSync(root, { recursive: true, mode: 0o700 });
  checkPrivate(root);
  const dir = join(root, `${manifest.version}-${manifest.id.slice(0, 16)}`);
  for (let attempt = 0; attempt < 3; attempt++) {
    let exists = false;
    try {
      exists = lstatSync(dir).isDirectory();
    } catch {
      // not written yet
    }
    if (exists) {
      checkPrivate(dir);
      if (verifyRuntimeDir(dir, manifest)) return { dir, extracted: false };
      // Damaged or half-written: moved aside (a running process may still use its files).
      const old = join(root, `.old-${process.pid}-${Date.now()}`);
      try {
        renameSync(dir, old);
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code !== "ENOENT") throw e;
      }
    }
    removeStaleTemporaries(root);
    const tmp = join(root, `.tmp-${process.pid}-${Date.now()}`);
    mkdirSync(tmp, { mode: 0o700 });
    try {
      writeRuntimeDir(tmp, manifest, o.payload);
      renameSync(tmp, dir);
      return { dir, extracted: true };
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      rmSync(tmp, { recursive: true, force: true });
      // Another process put its copy in place first: verify and use that one.
      if (code === "ENOTEMPTY" || code === "EEXIST") continue;
      throw e;
    }
  }
  throw new RuntimeCacheError(`could not prepare the runtime directory ${dir}`);
}
