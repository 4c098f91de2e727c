// `npm run build`: one-file bundle of the CLI/server (dist/roost.mjs) and of the worker-pool
// entries (dist/worker.mjs, which piscina loads beside it, and dist/process-worker.mjs, the
// image worker process). Native modules and piscina (it spawns its own worker file) stay
// external: they come from node_modules at run time.
import { build } from "esbuild";
import { readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";

const MIGRATION_RE = /^(\d{4})_([a-z0-9_]+)\.sql$/;

/** The migrations embedded as [{version, name, sql}] (read by src/db/migrate.ts). */
function migrations() {
  return readdirSync("migrations")
    .map((f) => MIGRATION_RE.exec(f))
    .filter((m) => m !== null)
    .map((m) => ({ version: Number(m[1]), name: m[2], sql: readFileSync(join("migrations", m[0]), "utf8") }))
    .sort((a, b) => a.version - b.version);
}

export async function buildBundle({ outdir = "dist", quiet = false } = {}) {
  const embedded = migrations();
  rmSync(outdir, { recursive: true, force: true });
  const result = await build({
    entryPoints: { roost: "cli/roost.ts", worker: "src/workers/worker.ts", "process-worker": "src/workers/process-entry.ts" },
    outdir,
    outExtension: { ".js": ".mjs" },
    bundle: true,
    format: "esm",
    platform: "node",
    target: "node20",
    external: ["better-sqlite3", "sharp", "piscina", "koffi"],
    // Bundled CommonJS dependencies call require(); ESM output has none unless we make one.
    banner: { js: "import { createRequire as __roostCreateRequire } from 'node:module'; const require = __roostCreateRequire(import.meta.url);" },
    define: {
      __ROOST_BUNDLED__: "true",
      __ROOST_MIGRATIONS__: JSON.stringify(embedded),
    },
    legalComments: "none",
    // V8 keeps a script with any character beyond Latin-1 as a two-byte string: the 6 MB bundle
    // held 12 MB of heap. ASCII output (comments dropped with the whitespace, the rest escaped
    // below) keeps it one byte per character. Names are kept: stack traces stay readable.
    charset: "ascii",
    minifyWhitespace: true,
    logLevel: quiet ? "silent" : "warning",
    metafile: true,
  });
  // What esbuild leaves unescaped (regular expression literals, ours and dependencies'): a \u
  // escape means the same character there.
  for (const file of Object.keys(result.metafile.outputs)) {
    if (!file.endsWith(".mjs")) continue;
    const text = readFileSync(file, "utf8");
    const ascii = text.replace(/[^\x00-\x7f]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`);
    if (ascii !== text) writeFileSync(file, ascii);
  }
  if (!quiet) {
    for (const [file, out] of Object.entries(result.metafile.outputs)) {
      console.error(`${file}  ${(out.bytes / 1024).toFixed(0)} KB`);
    }
    console.error(`embedded ${embedded.length} migration(s): ${embedded.map((m) => `${String(m.version).padStart(4, "0")}_${m.name}`).join(", ")}`);
  }
  return result.metafile;
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  // `node build.mjs [--outdir DIR]` (the benchmark builds its own copy outside dist/).
  const i = process.argv.indexOf("--outdir");
  await buildBundle(i > 0 ? { outdir: process.argv[i + 1] } : {});
}
