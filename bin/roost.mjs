#!/usr/bin/env node
// `roost` as installed by package.json "bin". Runs the bundle (dist/roost.mjs, from
// `npm run build`) when there is one, else the TypeScript sources through tsx, so a fresh
// checkout works right after `npm install`.
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";

const bundle = new URL("../dist/roost.mjs", import.meta.url);

if (existsSync(fileURLToPath(bundle))) {
  await import(bundle.href);
} else {
  const { register } = await import("tsx/esm/api");
  register();
  // Loader hooks registered at run time do not reach worker threads (Node 20), and the worker
  // pool starts its threads with process.execArgv: give them tsx there.
  process.execArgv.push("--import", import.meta.resolve("tsx"));
  await import(new URL("../cli/roost.ts", import.meta.url).href);
}
