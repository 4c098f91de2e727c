import { test } from "node:test";
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { chmodSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { brotliCompressSync } from "node:zlib";
import { ensureRuntime, type RuntimeManifest, runtimeCacheRoot } from "../../cli/exe/runtime-cache.ts";

// The single executable's runtime cache (cli/exe/runtime-cache.ts): written once, verified,
// written again when damaged. (The executable itself: test/cli/executable.test.ts.)

const sha = (b: Uint8Array) => createHash("sha256").update(b).digest("hex");

function payloadOf(files: Record<string, Record<string, string>>): { manifest: RuntimeManifest; assets: Map<string, Uint8Array> } {
  const manifest: RuntimeManifest = { format: "roost-runtime", version: "9.9.9", id: "ab".repeat(32), entry: "main.mjs", groups: [], files: [] };
  const assets = new Map<string, Uint8Array>();
  for (const [group, entries] of Object.entries(files)) {
    let offset = 0;
    const parts: Buffer[] = [];
    for (const [path, text] of Object.entries(entries)) {
      const data = Buffer.from(text);
      manifest.files.push({ path, group, offset, size: data.length, mode: path.endsWith(".node") ? 0o755 : 0o644, sha256: sha(data) });
      parts.push(data);
      offset += data.length;
    }
    const asset = `runtime-${manifest.groups.length}.br`;
    const packed = brotliCompressSync(Buffer.concat(parts));
    assets.set(asset, packed);
    manifest.groups.push({ name: group, asset, bytes: offset, compressedBytes: packed.length });
  }
  return { manifest, assets };
}

function setup(t: { after(fn: () => void): void }) {
  const root = join(mkdtempSync(join(tmpdir(), "roost-runtime-")), "cache");
  t.after(() => rmSync(join(root, ".."), { recursive: true, force: true }));
  const { manifest, assets } = payloadOf({
    app: { "main.mjs": "export default 1;\n" },
    natives: { "node_modules/x/package.json": '{"name":"x"}', "node_modules/x/build/x.node": "\x7fELF pretend" },
  });
  let reads = 0;
  const payload = (asset: string) => {
    reads++;
    return assets.get(asset)!;
  };
  return { root, manifest, assets, payload, reads: () => reads };
}

test("the runtime files are written once into a private versioned directory, read-only", (t) => {
  const s = setup(t);
  const first = ensureRuntime({ manifest: s.manifest, root: s.root, payload: s.payload });
  assert.equal(first.extracted, true);
  assert.equal(first.dir, join(s.root, "9.9.9-abababababababab"));
  assert.equal(readFileSync(join(first.dir, "node_modules/x/build/x.node"), "utf8"), "\x7fELF pretend");
  assert.equal(readFileSync(join(first.dir, "main.mjs"), "utf8"), "export default 1;\n");
  assert.equal(statSync(s.root).mode & 0o777, 0o700);
  assert.equal(statSync(join(first.dir, "node_modules/x/build/x.node")).mode & 0o777, 0o555);
  assert.equal(statSync(join(first.dir, "main.mjs")).mode & 0o777, 0o444);
  assert.equal(s.reads(), 2, "both groups decompressed");

  const again = ensureRuntime({ manifest: s.manifest, root: s.root, payload: s.payload });
  assert.deepEqual(again, { dir: first.dir, extracted: false });
  assert.equal(s.reads(), 2, "a verified directory is used as it is: the payload is not read");
  assert.deepEqual(readdirSync(s.root), ["9.9.9-abababababababab"], "no temporary directory left behind");
});

test("a changed or missing file makes the directory be written again", (t) => {
  const s = setup(t);
  const { dir } = ensureRuntime({ manifest: s.manifest, root: s.root, payload: s.payload });
  const addon = join(dir, "node_modules/x/build/x.node");
  chmodSync(addon, 0o755);
  writeFileSync(addon, "\x7fELF evil!!!");
  const healed = ensureRuntime({ manifest: s.manifest, root: s.root, payload: s.payload });
  assert.equal(healed.extracted, true);
  assert.equal(readFileSync(addon, "utf8"), "\x7fELF pretend");

  rmSync(join(dir, "main.mjs"), { force: true });
  assert.equal(ensureRuntime({ manifest: s.manifest, root: s.root, payload: s.payload }).extracted, true);
  assert.equal(readFileSync(join(dir, "main.mjs"), "utf8"), "export default 1;\n");

  // Same contents under a new inode (a copy): hashed again, accepted, not rewritten.
  const copy = readFileSync(join(dir, "main.mjs"));
  rmSync(join(dir, "main.mjs"));
  writeFileSync(join(dir, "main.mjs"), copy);
  assert.equal(ensureRuntime({ manifest: s.manifest, root: s.root, payload: s.payload }).extracted, false);
});

test("a damaged payload, a shared cache directory and a leftover of a killed extraction", (t) => {
  const s = setup(t);
  const [group] = s.manifest.groups;
  const bad = { ...s.manifest, files: s.manifest.files.map((f) => (f.group === group.name ? { ...f, sha256: "0".repeat(64) } : f)) };
  assert.throws(() => ensureRuntime({ manifest: bad, root: s.root, payload: s.payload }), /the executable is damaged: main\.mjs does not match its checksum/);
  assert.deepEqual(readdirSync(s.root), [], "nothing half-written is kept");

  // A leftover of a process that died mid-write (pid 2^22+1 cannot exist on Linux) is removed.
  mkdirSync(join(s.root, ".tmp-4194305-1"));
  ensureRuntime({ manifest: s.manifest, root: s.root, payload: s.payload });
  assert.deepEqual(readdirSync(s.root), ["9.9.9-abababababababab"]);

  chmodSync(s.root, 0o777);
  assert.throws(() => ensureRuntime({ manifest: s.manifest, root: s.root, payload: s.payload }), /is writable by other users/);
});

test("the cache root follows ROOST_CACHE_DIR, systemd's CACHE_DIRECTORY, XDG, then the home directory", () => {
  assert.equal(runtimeCacheRoot({ ROOST_CACHE_DIR: "/srv/c", XDG_CACHE_HOME: "/x" }, "/home/u", 1000), "/srv/c");
  assert.equal(runtimeCacheRoot({ CACHE_DIRECTORY: "/var/cache/roost" }, "/home/u", 1000), "/var/cache/roost");
  assert.equal(runtimeCacheRoot({ XDG_CACHE_HOME: "/x" }, "/home/u", 1000), "/x/roost");
  assert.equal(runtimeCacheRoot({}, "/home/u", 1000), "/home/u/.cache/roost");
  assert.equal(runtimeCacheRoot({}, "/nonexistent", 1000), join(tmpdir(), "roost-cache-1000"));
});
