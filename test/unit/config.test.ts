import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ConfigError, checkSecret, configPath, loadConfig, writeConfigFile } from "../../src/config/config.ts";

function tempDir(t: { after(fn: () => void): void }): string {
  const dir = mkdtempSync(join(tmpdir(), "roost-config-"));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

test("defaults apply when there is no file, env or override", (t) => {
  const dir = tempDir(t);
  const c = loadConfig(dir, {}, {});
  assert.equal(c.dataDir, dir);
  assert.equal(c.domain, "localhost:3000");
  assert.equal(c.protocol, "https");
  assert.equal(c.port, 3000);
  assert.equal(c.host, "127.0.0.1");
  assert.equal(c.registrations, "open");
  assert.equal(c.jobsAutorun, true);
  assert.equal(c.benchRoutes, false);
});

test("config.json < ROOST_* environment < command-line overrides", (t) => {
  const dir = tempDir(t);
  writeConfigFile(dir, { domain: "Social.Example", title: "From file", port: 4000, registrations: "approval", maxStatusChars: 1000 });
  const env = { ROOST_TITLE: "From env", ROOST_PORT: "5000", ROOST_MAX_STATUS_CHARS: "", ROOST_BENCH_ROUTES: "1" };
  const c = loadConfig(dir, { port: 6000 }, env);
  assert.equal(c.title, "From env"); // env beats file
  assert.equal(c.port, 6000); // override beats env and file
  assert.equal(c.registrations, "approval"); // file beats default
  assert.equal(c.maxStatusChars, 1000); // an empty env value is ignored
  assert.equal(c.benchRoutes, true); // ROOST_BENCH_ROUTES=1 → true
  assert.equal(c.domain, "social.example"); // lower-cased
  assert.equal(c.description, "A small Roost instance."); // default
});

test("booleans accept the usual spellings from the environment", (t) => {
  const dir = tempDir(t);
  assert.equal(loadConfig(dir, {}, { ROOST_PUBLIC_API: "false" }).publicApi, false);
  assert.equal(loadConfig(dir, {}, { ROOST_PUBLIC_API: "off" }).publicApi, false);
  assert.equal(loadConfig(dir, {}, { ROOST_ALLOW_PRIVATE_ADDRESSES: "yes" }).allowPrivateAddresses, true);
});

test("bad values are refused with a one-line message naming the setting and its source", (t) => {
  const dir = tempDir(t);
  const cases: [Record<string, string>, RegExp][] = [
    [{ ROOST_PORT: "abc" }, /^invalid port \(ROOST_PORT\): "abc" is not an integer$/],
    [{ ROOST_PORT: "70000" }, /^invalid port \(ROOST_PORT\): "70000" is not <= 65535$/],
    [{ ROOST_REGISTRATIONS: "maybe" }, /^invalid registrations \(ROOST_REGISTRATIONS\): "maybe" is not one of open, approval, closed$/],
    [{ ROOST_PUBLIC_API: "perhaps" }, /^invalid publicApi \(ROOST_PUBLIC_API\): "perhaps" is not a boolean$/],
    [{ ROOST_POOL_IDLE_MS: "5" }, /^invalid poolIdleMs \(ROOST_POOL_IDLE_MS\): "5" is not >= 100$/],
    [{ ROOST_DOMAIN: "not a domain" }, /^invalid domain: "not a domain" \(expected HOST or HOST:PORT\)$/],
  ];
  for (const [env, re] of cases) {
    assert.throws(() => loadConfig(dir, {}, env), (e: unknown) => e instanceof ConfigError && re.test(e.message), JSON.stringify(env));
  }
  assert.throws(() => loadConfig(dir, { logLevel: "loud" as never }, {}), /^ConfigError: invalid logLevel \(command line\): "loud" is not one of debug, info, warn, error, silent$/);
});

test("config.json: unknown keys, wrong types and broken JSON are refused", (t) => {
  const dir = tempDir(t);
  writeFileSync(configPath(dir), JSON.stringify({ domain: "a.example", titel: "typo" }));
  assert.throws(() => loadConfig(dir, {}, {}), { name: "ConfigError", message: `unknown setting "titel" in ${configPath(dir)}` });
  writeFileSync(configPath(dir), JSON.stringify({ port: 80.5 }));
  assert.throws(() => loadConfig(dir, {}, {}), { message: "invalid port (config.json): 80.5 is not an integer" });
  writeFileSync(configPath(dir), JSON.stringify({ title: 42 }));
  assert.throws(() => loadConfig(dir, {}, {}), { message: "invalid title (config.json): 42 is not a string" });
  writeFileSync(configPath(dir), "{ nope");
  assert.throws(() => loadConfig(dir, {}, {}), (e: unknown) => e instanceof ConfigError && e.message.startsWith(`cannot parse ${configPath(dir)}:`) && !e.message.includes("\n"));
  writeFileSync(configPath(dir), "[1, 2]");
  assert.throws(() => loadConfig(dir, {}, {}), { message: `${configPath(dir)} must hold a JSON object` });
});

test("README documents every setting with its environment variable", (t) => {
  const readme = readFileSync(new URL("../../README.md", import.meta.url), "utf8");
  const keys = Object.keys(loadConfig(tempDir(t), {}, {})).filter((k) => k !== "dataDir");
  for (const key of keys) {
    const env = "ROOST_" + key.replace(/[A-Z]/g, (c) => "_" + c).toUpperCase();
    assert.ok(readme.includes(`| \`${key}\` | \`${env}\` |`), `README.md lacks a row for ${key} (${env})`);
  }
});

test("the app refuses to start with a missing or short secret", () => {
  assert.throws(() => checkSecret({ secret: "" }), { name: "ConfigError", message: /^invalid secret: must be at least 32 characters/ });
  assert.throws(() => checkSecret({ secret: "x".repeat(31) }), /at least 32/);
  checkSecret({ secret: "x".repeat(32) });
});
