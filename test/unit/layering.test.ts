import { test } from "node:test";
import assert from "node:assert/strict";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import ts from "typescript";

// Who imports whom (CONVENTIONS.md "Who imports whom", src/federation/DESIGN.md "Layers"):
// every import in src/ runs downward. The imports are read with TypeScript's parser, so
// type-only imports are told apart (they vanish at run time but still tie the layers).

const SRC = resolve(import.meta.dirname, "../../src");

interface Edge {
  from: string; // path under src/, e.g. "http/auth.ts"
  to: string;
  typeOnly: boolean;
}

function sourceFiles(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) out.push(...sourceFiles(p));
    else if (name.endsWith(".ts")) out.push(p);
  }
  return out;
}

function isTypeOnly(node: ts.ImportDeclaration | ts.ExportDeclaration): boolean {
  if (ts.isExportDeclaration(node)) {
    if (node.isTypeOnly) return true;
    const c = node.exportClause;
    return c !== undefined && ts.isNamedExports(c) && c.elements.length > 0 && c.elements.every((e) => e.isTypeOnly);
  }
  const clause = node.importClause;
  if (!clause) return false; // a side-effect import
  if (clause.isTypeOnly) return true;
  if (clause.name) return false;
  const b = clause.namedBindings;
  return b !== undefined && ts.isNamedImports(b) && b.elements.length > 0 && b.elements.every((e) => e.isTypeOnly);
}

function importsOf(file: string): Edge[] {
  const text = readFileSync(file, "utf8");
  const sf = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const edges: Edge[] = [];
  const add = (spec: string, typeOnly: boolean) => {
    if (!spec.startsWith(".")) return; // packages and node: builtins
    edges.push({ from: relative(SRC, file), to: relative(SRC, resolve(dirname(file), spec)), typeOnly });
  };
  const visit = (node: ts.Node) => {
    if ((ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) && node.moduleSpecifier && ts.isStringLiteral(node.moduleSpecifier)) {
      add(node.moduleSpecifier.text, isTypeOnly(node));
    } else if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword) {
      const [arg] = node.arguments;
      if (arg && ts.isStringLiteral(arg)) add(arg.text, false);
    } else if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument) && ts.isStringLiteral(node.argument.literal)) {
      add(node.argument.literal.text, true); // `import("...").Foo` in a type position
    }
    ts.forEachChild(node, visit);
  };
  visit(sf);
  return edges;
}

const edges = sourceFiles(SRC).flatMap(importsOf);

/** The layer a module belongs to, finest first. */
function layerOf(path: string): string {
  if (path === "errors.ts" || path === "version.ts") return "lib"; // leaves beside lib/
  if (path.startsWith("federation/net/")) return "net";
  if (path.startsWith("federation/routes/") || path === "federation/register.ts") return "federation/routes";
  if (path.startsWith("jobs/handlers/") || path === "jobs/register.ts") return "jobs/handlers";
  if (path.startsWith("jobs/")) return "jobs"; // the queue: jobs.ts, job-store.ts, runner.ts
  const top = path.split("/")[0];
  return top.endsWith(".ts") ? top.slice(0, -3) : top; // app, main
}

// What each layer may import besides itself. `app.ts` (the App interface) may be imported
// by anyone as a type; `main.ts` (the wiring) by no one.
const MAY_IMPORT: Record<string, string[]> = {
  lib: [],
  config: ["lib"],
  // Transport and the worker entries: no database, nothing above lib.
  net: ["lib"],
  workers: ["lib", "net"],
  db: ["lib"],
  storage: ["db", "lib"],
  media: ["lib"],
  jobs: ["db", "lib"],
  // The search indexes (src/search/DESIGN.md): their tables' reads and writes, below services.
  search: ["storage", "db", "lib"],
  // Trends (src/trends/DESIGN.md): scoring over their tables, beside search.
  trends: ["storage", "db", "lib", "search"],
  // Follow suggestions' global ranking (src/suggestions/DESIGN.md), beside trends.
  suggestions: ["storage", "db", "lib"],
  // The in-process event bus (streaming/DESIGN.md): services publish, streaming subscribes.
  events: ["db", "lib"],
  // Outgoing e-mail (src/mail/DESIGN.md): messages, the mail.send queue and the transport.
  mail: ["lib", "config", "jobs"],
  services: ["storage", "db", "lib", "config", "media", "net", "federation", "events", "search", "mail"],
  serializers: ["storage", "lib", "media"],
  // Administration (src/admin/DESIGN.md): the moderation use cases, above services, with the
  // role policy and the audit log; routes, jobs and the CLI call it, services never do.
  admin: ["services", "storage", "db", "lib", "config", "federation", "jobs", "media", "events", "search", "mail"],
  federation: ["services", "storage", "db", "lib", "net", "config", "jobs", "media", "workers", "search"],
  // Federation's HTTP surface (routes, and register.ts which also registers its jobs).
  "federation/routes": ["federation", "services", "storage", "db", "lib", "net", "http"],
  // Web Push delivery (push/DESIGN.md): beside federation, below the job handlers; it calls
  // services only for the push rules (push-notify) and renders the sender with serializers.
  push: ["services", "serializers", "storage", "db", "lib", "net", "federation", "jobs", "workers", "config"],
  "jobs/handlers": ["federation/routes", "federation", "services", "storage", "jobs", "lib", "search", "admin", "trends", "suggestions", "push", "ops", "mail"],
  // Live streams: connections, subscriptions and delivery, fed by the bus.
  streaming: ["events", "services", "serializers", "lib", "config"],
  http: ["services", "serializers", "federation/routes", "federation", "lib", "media", "config", "streaming", "admin", "ops"],
  app: ["config", "db", "lib", "jobs", "workers", "events", "streaming", "ops"],
  // Operations (src/ops/DESIGN.md): backups, status, metrics, the admin socket, the storage budget.
  ops: ["services", "storage", "db", "lib", "config", "jobs", "media"],
  main: ["*"],
};

// Type-only imports allowed on top of MAY_IMPORT: they name a shape, run no code.
const MAY_IMPORT_TYPES: Record<string, string[]> = {
  // The worker task's payload and result types (the worker imports net, not the reverse).
  net: ["workers"],
  services: ["workers"],
  // Storage keeps the signature scheme a peer answered to (a column).
  storage: ["net"],
  // Entities built from what a service returns (instance, nodeinfo, webfinger).
  serializers: ["services"],
};

function allowed(e: Edge): boolean {
  const from = layerOf(e.from);
  const to = layerOf(e.to);
  if (to === "app") return e.typeOnly || from === "main";
  if (from === to) return true;
  const may = MAY_IMPORT[from];
  assert.ok(may, `${e.from}: a new layer; give it a row in MAY_IMPORT`);
  return may.includes("*") || may.includes(to) || (e.typeOnly && (MAY_IMPORT_TYPES[from] ?? []).includes(to));
}

const show = (list: Edge[]) => list.map((e) => `${e.from} → ${e.to}${e.typeOnly ? " (type)" : ""}`).join("\n");

test("the import scan sees the imports", () => {
  assert.ok(edges.length > 1000, `only ${edges.length} imports found`);
  assert.ok(edges.some((e) => e.from === "main.ts" && e.to === "http/server.ts" && !e.typeOnly));
  assert.ok(edges.some((e) => e.from === "app.ts" && e.to === "db/db.ts" && e.typeOnly));
  for (const e of edges) assert.ok(statSync(join(SRC, e.to), { throwIfNoEntry: false })?.isFile(), `${e.from} imports missing ${e.to}`);
});

test("every import runs downward", () => {
  assert.equal(show(edges.filter((e) => !allowed(e))), "");
});

test("http/ never imports storage/ or db/ (not even types)", () => {
  assert.equal(show(edges.filter((e) => e.from.startsWith("http/") && /^(storage|db)\//.test(e.to))), "");
});

test("serializers never import db/: their batched reads go through storage", () => {
  assert.equal(show(edges.filter((e) => e.from.startsWith("serializers/") && e.to.startsWith("db/"))), "");
});

test("storage imports nothing above it", () => {
  assert.equal(show(edges.filter((e) => e.from.startsWith("storage/") && /^(services|serializers|http|federation\/(?!net\/)|jobs|media|workers)/.test(e.to))), "");
});

test("lib imports only lib/ and errors.ts", () => {
  assert.equal(show(edges.filter((e) => e.from.startsWith("lib/") && !e.to.startsWith("lib/") && e.to !== "errors.ts")), "");
});

test("services reach federation only through outbox hooks and services/remote-lookup.ts", () => {
  const doors = (e: Edge) =>
    e.to === "federation/outbox/hooks.ts" ||
    // Preview cards fetch web pages through the one guarded HTTP client (no federation logic).
    (e.from === "services/preview-cards.ts" && e.to === "federation/net/safe-fetch.ts") ||
    (e.from === "services/remote-lookup.ts" && (e.to.startsWith("federation/resolve/") || e.to === "federation/net/safe-fetch.ts" || e.to === "federation/types.ts"));
  assert.equal(show(edges.filter((e) => e.from.startsWith("services/") && e.to.startsWith("federation/") && !doors(e))), "");
});

test("within federation, only the inbox, remote-status landing and routes call services", () => {
  const callers = /^federation\/(inbox\/|routes\/|remote-statuses\.ts|remote-status-edits\.ts)/;
  assert.equal(show(edges.filter((e) => e.from.startsWith("federation/") && e.to.startsWith("services/") && !callers.test(e.from))), "");
});

test("no import cycle runs through two layers", () => {
  // Modules that import each other at run time (type-only imports vanish) across layers.
  const graph = new Map<string, string[]>();
  for (const e of edges) if (!e.typeOnly) graph.set(e.from, [...(graph.get(e.from) ?? []), e.to]);
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const knots: string[] = [];
  let next = 0;
  const strong = (v: string) => {
    index.set(v, next);
    low.set(v, next++);
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!index.has(w)) {
        strong(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) !== index.get(v)) return;
    const component: string[] = [];
    let w: string;
    do {
      w = stack.pop()!;
      onStack.delete(w);
      component.push(w);
    } while (w !== v);
    if (new Set(component.map(layerOf)).size > 1) knots.push(component.sort().join(" ⇄ "));
  };
  for (const v of graph.keys()) if (!index.has(v)) strong(v);
  assert.deepEqual(knots, []);
});
