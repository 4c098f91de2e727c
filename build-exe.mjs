// `npm run build:exe`: dist/roost, one executable for linux-x64 that needs no Node, npm or
// compiler where it runs. A Node single executable application (SEA): a copy of the Node
// binary running this build, with a blob injected by postject that holds the entry
// (cli/exe/sea-main.ts, compiled to CommonJS) and, as assets, the runtime files in
// brotli-compressed groups: the bundle (dist/roost.mjs and dist/worker.mjs, migrations
// embedded) and the packages it leaves external: better-sqlite3, sharp with libvips, piscina, koffi.
// At start the entry writes them once into a versioned, checksum-verified cache directory and
// imports the bundle from there (cli/exe/runtime-cache.ts).
import { build } from "esbuild";
import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { chmodSync, copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs";
import { builtinModules } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join, relative, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { brotliCompressSync, constants as zlib } from "node:zlib";
import { buildBundle } from "./build.mjs";

const ROOT = dirname(new URL(import.meta.url).pathname);
const FUSE = "NODE_SEA_FUSE_fce680ab2cc467b6e072b8b5df1996b2";
/** The packages the bundle leaves external, each the root of a group of runtime files. */
const EXTERNALS = { "better-sqlite3": "better-sqlite3", sharp: "sharp + libvips", piscina: "piscina", koffi: "koffi" };
/**
 * Packages loaded by name at run time (require of a config value, so not in the bundle's
 * imports), carried when installed: the optional PAM binding (services/external-auth/pam.ts).
 */
const OPTIONAL_RUNTIME = { "node-linux-pam": "node-linux-pam (PAM)" };
/** Install-time dependencies that nothing loads at run time. */
// node-linux-pam builds with node-pre-gyp and node-addon-api and ships a CLI (yargs); it runs with `bindings` alone.
const SKIP_PACKAGES = new Set(["prebuild-install", "@mapbox/node-pre-gyp", "node-addon-api", "yargs", "string-template"]);
/** Build leftovers and sources inside packages: never loaded. */
const SKIP_DIRS = new Set(["src", "deps", "test", "tests", "docs", "doc", "example", "examples", "benchmark", "obj", "obj.target", ".deps", "include", "node_modules", ".github"]);
/** Folders SKIP_DIRS names that a package loads at run time: koffi's JavaScript is in src/. */
const RUNTIME_DIRS = { koffi: new Set(["src"]) };
const KEEP_FILE = /(\.(c|m)?js|\.json|\.node|\.so(\.\d+)*)$|^(LICEN[CS]E|NOTICE|COPYING)/i;
const SKIP_FILE = /(\.d\.[cm]?ts|\.map|^test_extension\.node|^binding\.gyp)$/;

const mb = (n) => `${(n / 1e6).toFixed(1)} MB`;
const sha256 = (b) => createHash("sha256").update(b).digest("hex");

/** The directory of package `name` as Node would find it from `fromDir`. */
function findPackageDir(name, fromDir) {
  for (let dir = fromDir; ; dir = dirname(dir)) {
    const candidate = join(dir, "node_modules", ...name.split("/"));
    if (existsSync(join(candidate, "package.json"))) return candidate;
    if (dir === dirname(dir)) return undefined;
  }
}

function packageFiles(pkgDir, keepDirs = new Set()) {
  const out = [];
  const walk = (dir) => {
    for (const name of readdirSync(dir).sort()) {
      const p = join(dir, name);
      const s = statSync(p);
      if (s.isDirectory()) {
        if (!SKIP_DIRS.has(name) || keepDirs.has(name)) walk(p);
      } else if (KEEP_FILE.test(name) && !SKIP_FILE.test(name)) {
        out.push({ abs: p, mode: s.mode & 0o111 ? 0o755 : 0o644 });
      }
    }
  };
  walk(pkgDir);
  return out;
}

/**
 * Each external package with its run-time dependencies (optional ones when installed), as
 * files under node_modules/ keyed by group. A package reached from two roots joins the first.
 */
function runtimePackages() {
  const seen = new Set();
  const groups = new Map();
  for (const [root, group] of [...Object.entries(EXTERNALS), ...Object.entries(OPTIONAL_RUNTIME)]) {
    const files = [];
    const queue = [[root, ROOT]];
    while (queue.length) {
      const [name, from] = queue.shift();
      if (SKIP_PACKAGES.has(name)) continue;
      const dir = findPackageDir(name, from);
      if (!dir) {
        if (name === root && root in OPTIONAL_RUNTIME) break; // its build failed: PAM is unavailable there
        if (name === root) throw new Error(`${name} is not installed (run npm install)`);
        continue; // an optional dependency for another platform
      }
      if (seen.has(dir)) continue;
      seen.add(dir);
      const pkg = JSON.parse(readFileSync(join(dir, "package.json"), "utf8"));
      for (const f of packageFiles(dir, RUNTIME_DIRS[pkg.name])) files.push({ path: relative(ROOT, f.abs).split("\\").join("/"), abs: f.abs, mode: f.mode });
      for (const dep of [...Object.keys(pkg.dependencies ?? {}), ...Object.keys(pkg.optionalDependencies ?? {})]) queue.push([dep, dir]);
    }
    if (files.length) groups.set(group, files);
  }
  return groups;
}

function compress(buf, quality) {
  return brotliCompressSync(buf, {
    params: {
      [zlib.BROTLI_PARAM_QUALITY]: quality,
      [zlib.BROTLI_PARAM_LGWIN]: 24,
      [zlib.BROTLI_PARAM_SIZE_HINT]: buf.length,
    },
  });
}

/**
 * Builds the executable at `out`. `quality` is brotli's (0-11): 11 saves ~1 MB over 6 and
 * takes minutes on a small machine. Returns the size breakdown.
 */
export async function buildExecutable({ out = "dist/roost", quality = 6, quiet = false } = {}) {
  if (process.platform !== "linux" || process.arch !== "x64") throw new Error(`build:exe makes a linux-x64 executable; this is ${process.platform}-${process.arch}`);
  const [major, minor] = process.versions.node.split(".").map(Number);
  if (major < 20 || (major === 20 && minor < 12)) throw new Error(`build:exe needs Node >= 20.12 (SEA assets); this is ${process.version}`);
  const nodeBinary = process.execPath;
  if (!readFileSync(nodeBinary).includes(`${FUSE}:0`)) throw new Error(`${nodeBinary} cannot become a single executable (no SEA fuse): use an official Node build`);
  const log = quiet ? () => {} : (s) => console.error(s);
  const work = mkdtempSync(join(tmpdir(), "roost-exe-"));
  try {
    const app = join(work, "app");
    checkExternals(await buildBundle({ outdir: app, quiet: true }));
    const entries = readdirSync(app).filter((f) => f.endsWith(".mjs")).sort();
    const groups = new Map([["app bundle", entries.map((f) => ({ path: f, abs: join(app, f), mode: 0o644 }))]]);
    for (const [g, files] of runtimePackages()) groups.set(g, files);

    const manifest = { format: "roost-runtime", version: "", id: "", entry: "roost.mjs", groups: [], files: [] };
    const assets = {};
    for (const [name, files] of groups) {
      const parts = [];
      let offset = 0;
      for (const f of files) {
        const data = readFileSync(f.abs);
        parts.push(data);
        manifest.files.push({ path: f.path, group: name, offset, size: data.length, mode: f.mode, sha256: sha256(data) });
        offset += data.length;
      }
      const started = Date.now();
      const packed = compress(Buffer.concat(parts), quality);
      const asset = `runtime-${manifest.groups.length}.br`;
      writeFileSync(join(work, asset), packed);
      assets[asset] = join(work, asset);
      manifest.groups.push({ name, asset, bytes: offset, compressedBytes: packed.length });
      log(`compressed ${name}: ${mb(offset)} → ${mb(packed.length)} (${((Date.now() - started) / 1000).toFixed(1)} s)`);
    }
    const versionSource = readFileSync(join(ROOT, "src", "version.ts"), "utf8");
    manifest.version = /ROOST_VERSION = "([^"]+)"/.exec(versionSource)[1];
    manifest.id = contentId(manifest.files);
    writeFileSync(join(work, "runtime.json"), JSON.stringify(manifest));
    assets["runtime.json"] = join(work, "runtime.json");

    await build({
      entryPoints: [join(ROOT, "cli", "exe", "sea-main.ts")],
      outfile: join(work, "sea-main.cjs"),
      bundle: true,
      format: "cjs",
      platform: "node",
      target: "node20",
      external: ["node:*"],
      legalComments: "none",
      logLevel: quiet ? "silent" : "warning",
    });
    const config = {
      main: join(work, "sea-main.cjs"),
      output: join(work, "sea-prep.blob"),
      disableExperimentalSEAWarning: true,
      useSnapshot: false,
      useCodeCache: false,
      assets,
    };
    writeFileSync(join(work, "sea-config.json"), JSON.stringify(config));
    const blob = spawnSync(nodeBinary, ["--experimental-sea-config", join(work, "sea-config.json")], { encoding: "utf8" });
    if (blob.status !== 0) throw new Error(`node --experimental-sea-config failed: ${blob.stderr || blob.stdout}`);

    const target = resolve(out);
    mkdirSync(dirname(target), { recursive: true });
    const partial = `${target}.partial`;
    copyFileSync(nodeBinary, partial);
    const { inject } = await import("postject");
    // postject (LIEF) warns about Node's unnamed note sections; the result is sound.
    const quietStderr = process.stderr.write;
    process.stderr.write = () => true;
    try {
      await inject(partial, "NODE_SEA_BLOB", readFileSync(config.output), { sentinelFuse: FUSE });
    } finally {
      process.stderr.write = quietStderr;
    }
    chmodSync(partial, 0o755);
    renameSync(partial, target);

    const report = {
      file: target,
      node: process.version,
      totalBytes: statSync(target).size,
      nodeBinaryBytes: statSync(nodeBinary).size,
      entryBytes: statSync(config.main).size,
      groups: manifest.groups.map(({ name, bytes, compressedBytes }) => ({ name, bytes, compressedBytes })),
    };
    log(`${target}  ${mb(report.totalBytes)} (linux-x64, Node ${process.version})`);
    log(`  Node binary             ${mb(report.nodeBinaryBytes)}`);
    log(`  entry (sea-main.cjs)    ${(report.entryBytes / 1024).toFixed(0)} KB`);
    for (const g of report.groups) log(`  ${g.name.padEnd(22)}  ${mb(g.compressedBytes)} (${mb(g.bytes)} as files)`);
    return report;
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

/**
 * The packages the bundle imports at run time must all be in EXTERNALS (their files travel in
 * the executable); a new external in build.mjs fails the build here rather than at run time.
 * esbuild's metafile lists each output's external imports (scanning the text would catch
 * string literals that merely look like imports).
 */
function checkExternals(metafile) {
  const builtins = new Set(builtinModules);
  const found = new Set();
  for (const output of Object.values(metafile.outputs)) {
    for (const { path: spec, external } of output.imports) {
      if (!external || spec.startsWith("node:") || builtins.has(spec)) continue;
      found.add(spec.startsWith("@") ? spec.split("/").slice(0, 2).join("/") : spec.split("/")[0]);
    }
  }
  const missing = [...found].filter((p) => !(p in EXTERNALS));
  if (missing.length) throw new Error(`the bundle loads ${missing.join(", ")} at run time: add it to EXTERNALS in build-exe.mjs`);
}

/** Names the runtime directory: a hash of every file's path, mode and content hash. */
function contentId(files) {
  const h = createHash("sha256");
  for (const f of [...files].sort((a, b) => (a.path < b.path ? -1 : 1))) h.update(`${f.path}\0${f.mode}\0${f.sha256}\n`);
  return h.digest("hex");
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const i = process.argv.indexOf("--out");
  const q = process.argv.indexOf("--quality");
  await buildExecutable({ out: i > 0 ? process.argv[i + 1] : "dist/roost", quality: q > 0 ? Number(process.argv[q + 1]) : 6 });
}
