// A fake remote fediverse server for federation tests: real HTTP on 127.0.0.1, actors with real
// RSA keys, WebFinger, objects, and inboxes that record what they receive. Requests it sends are
// signed here with node:crypto directly (draft-cavage, as Mastodon does), independently of
// roost's own signing code, so tests check roost against a second implementation.
import { createHash, createSign, generateKeyPairSync, type KeyObject } from "node:crypto";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { type ClosingConnections, type ClosingMode, closeConnections } from "./closing-connections.ts";

export interface FakeActor {
  username: string;
  /** Actor id, e.g. http://127.0.0.1:PORT/users/bob */
  id: string;
  keyId: string;
  inbox: string;
  followers: string;
  publicKeyPem: string;
  privateKey: KeyObject;
  /** The served actor document; tests may edit it (it is served as it is at request time). */
  doc: Record<string, unknown>;
}

export interface Delivery {
  method: string;
  path: string;
  headers: Record<string, string>;
  body: any;
  raw: string;
}

export interface FakeRemote {
  /** `127.0.0.1:PORT` */
  domain: string;
  /** `http://127.0.0.1:PORT` */
  origin: string;
  actor(username: string, opts?: { type?: string; locked?: boolean; sharedInbox?: boolean; extra?: Record<string, unknown> }): FakeActor;
  /** Serves a JSON document at `path` (an AP object); `null` removes it (404), a number answers that status. */
  serve(path: string, doc: Record<string, unknown> | null | number): void;
  /** Serves raw bytes at `path` (an image, a web page) with this Content-Type. */
  serveFile(path: string, body: Buffer | string, contentType: string): void;
  /** Everything POSTed to any inbox, in arrival order. */
  received: Delivery[];
  /** Status an inbox answers a POST with (recorded in `received` either way); default 202. */
  respond?: (d: Delivery) => number;
  /** Every request the server got (method path, when: Date.now()), for asserting what was fetched. */
  requests: { method: string; path: string; signed: boolean; at: number }[];
  /**
   * Documents made on demand (a huge collection served page by page): a GET of a path this
   * answers (a document or a status) is served from it, before the `serve`d documents.
   */
  dynamic?: (path: string) => Record<string, unknown> | number | undefined;
  /** Milliseconds a GET of `path` waits before it is answered (a slow host); 0 for none. */
  delay?: (path: string) => number;
  /** Waits until a delivery matches (polls; deliveries come from roost's job runner). */
  waitFor(pred: (d: Delivery) => boolean, timeoutMs?: number): Promise<Delivery>;
  /** POSTs an activity to `url` signed by `actor` (cavage rsa-sha256 with Digest). */
  post(url: string, activity: Record<string, unknown>, actor: FakeActor, opts?: SignOptions): Promise<{ status: number; text: string }>;
  /** A signed GET (Accept: activity+json). */
  get(url: string, actor: FakeActor, opts?: SignOptions): Promise<{ status: number; headers: Headers; text: string; json: any }>;
  /** With `connections` given at start: how the server closed its connections. */
  closing?: ClosingConnections;
  close(): Promise<void>;
}

export interface SignOptions {
  /** Override the Date header (e.g. an old one). */
  date?: Date;
  /** Sign with another key than the actor's own (a wrong key). */
  privateKey?: KeyObject;
  /** Use this keyId instead of the actor's. */
  keyId?: string;
  /** Tamper with the Digest header after signing. */
  digest?: string;
  /** Headers to sign, in order; default Mastodon's. */
  headers?: string[];
  /** Send no Signature header at all. */
  unsigned?: boolean;
  contentType?: string;
}

// Key generation costs ~50-100 ms; tests make a few actors each, so keys are reused.
const keyPool: { publicKeyPem: string; privateKey: KeyObject }[] = [];
let nextKey = 0;
function takeKey(): { publicKeyPem: string; privateKey: KeyObject } {
  if (keyPool.length < 6) {
    const { publicKey, privateKey } = generateKeyPairSync("rsa", { modulusLength: 2048 });
    keyPool.push({ publicKeyPem: publicKey.export({ type: "spki", format: "pem" }).toString(), privateKey });
    return keyPool[keyPool.length - 1];
  }
  return keyPool[nextKey++ % keyPool.length];
}

/** A fresh key pair, never shared (for key-rotation and wrong-key tests). */
export function freshKey(): { publicKeyPem: string; privateKey: KeyObject } {
  const { publicKey, privateKey } = generateKeyPairSync("rsa", { modulusLength: 2048 });
  return { publicKeyPem: publicKey.export({ type: "spki", format: "pem" }).toString(), privateKey };
}

export const digestOf = (body: string) => "SHA-256=" + createHash("sha256").update(body).digest("base64");

/** Signs a request the draft-cavage way; returns the headers to send (Host, Date, Digest, Signature). */
export function cavageHeaders(
  method: string,
  url: string,
  body: string | undefined,
  keyId: string,
  privateKey: KeyObject,
  opts: { date?: Date; headers?: string[]; contentType?: string } = {},
): Record<string, string> {
  const u = new URL(url);
  const h: Record<string, string> = { host: u.host, date: (opts.date ?? new Date()).toUTCString() };
  if (body !== undefined) {
    h.digest = digestOf(body);
    h["content-type"] = opts.contentType ?? "application/activity+json";
  }
  const names = opts.headers ?? (body !== undefined ? ["(request-target)", "host", "date", "digest", "content-type"] : ["(request-target)", "host", "date"]);
  const lines = names.map((n) => (n === "(request-target)" ? `(request-target): ${method.toLowerCase()} ${u.pathname}${u.search}` : `${n}: ${h[n]}`));
  const signature = createSign("sha256").update(lines.join("\n")).sign(privateKey, "base64");
  h.signature = `keyId="${keyId}",algorithm="rsa-sha256",headers="${names.join(" ")}",signature="${signature}"`;
  return h;
}

const AS = "https://www.w3.org/ns/activitystreams";

/** `connections`: close kept-alive connections without saying so (closing-connections.ts). */
/** `host`: another loopback address (127.0.0.2) makes a second remote domain. */
export async function startFakeRemote(opts: { connections?: ClosingMode; host?: string } = {}): Promise<FakeRemote> {
  const docs = new Map<string, Record<string, unknown> | number>();
  const files = new Map<string, { body: Buffer; type: string }>();
  const actors = new Map<string, FakeActor>();
  const received: Delivery[] = [];
  const requests: FakeRemote["requests"] = [];
  const waiters: { pred: (d: Delivery) => boolean; resolve: (d: Delivery) => void }[] = [];
  let origin = "";
  let domain = "";

  const handler = async (req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const raw = Buffer.concat(chunks).toString("utf8");
    const url = new URL(req.url ?? "/", origin);
    requests.push({ method: req.method ?? "GET", path: url.pathname + url.search, signed: !!req.headers.signature, at: Date.now() });
    const send = (status: number, body?: unknown, type = "application/activity+json; charset=utf-8") => {
      res.writeHead(status, body === undefined ? {} : { "content-type": type });
      res.end(body === undefined ? undefined : typeof body === "string" ? body : JSON.stringify(body));
    };
    if (req.method === "POST") {
      let body: unknown;
      try {
        body = JSON.parse(raw);
      } catch {
        body = undefined;
      }
      const d: Delivery = { method: "POST", path: url.pathname, headers: req.headers as Record<string, string>, body, raw };
      received.push(d);
      for (const w of waiters.splice(0)) {
        if (w.pred(d)) w.resolve(d);
        else waiters.push(w);
      }
      return send(remote.respond?.(d) ?? 202);
    }
    const wait = req.method === "GET" ? (remote.delay?.(url.pathname + url.search) ?? 0) : 0;
    // Unref'd: a test that closes the server does not wait for the answer it never reads.
    if (wait > 0) await new Promise((r) => setTimeout(r, wait).unref());
    const made = req.method === "GET" ? remote.dynamic?.(url.pathname + url.search) : undefined;
    if (typeof made === "number") return send(made);
    if (made) return send(200, made);
    if (url.pathname === "/.well-known/webfinger") {
      const resource = url.searchParams.get("resource") ?? "";
      const m = /^acct:([^@]+)@(.+)$/.exec(resource);
      const actor = m && m[2] === domain ? actors.get(m[1].toLowerCase()) : undefined;
      if (!actor) return send(404);
      return send(
        200,
        {
          subject: `acct:${actor.username}@${domain}`,
          aliases: [actor.id],
          links: [{ rel: "self", type: "application/activity+json", href: actor.id }],
        },
        "application/jrd+json; charset=utf-8",
      );
    }
    // Actors are served live from actor.doc, so a test may replace or edit it.
    const actorAt = [...actors.values()].find((a) => new URL(a.id).pathname === url.pathname);
    if (actorAt && !docs.has(url.pathname)) return send(200, actorAt.doc);
    const file = files.get(url.pathname);
    if (file) {
      res.writeHead(200, { "content-type": file.type, "content-length": file.body.length });
      return res.end(file.body);
    }
    const doc = docs.get(url.pathname);
    if (doc === undefined) return send(404, { error: "Not found" }, "application/json");
    if (typeof doc === "number") return send(doc);
    return send(200, doc);
  };

  const server: Server = createServer((req, res) => {
    handler(req, res).catch(() => {
      res.writeHead(500);
      res.end();
    });
  });
  const closing = opts.connections ? closeConnections(server, opts.connections) : undefined;
  await new Promise<void>((resolve) => server.listen(0, opts.host ?? "127.0.0.1", () => resolve()));
  const addr = server.address();
  const port = typeof addr === "object" && addr ? addr.port : 0;
  domain = `${opts.host ?? "127.0.0.1"}:${port}`;
  origin = `http://${domain}`;

  const remote: FakeRemote = {
    domain,
    origin,
    received,
    requests,
    closing,
    actor(username, opts = {}) {
      const key = takeKey();
      const id = `${origin}/users/${username}`;
      const actor: FakeActor = {
        username,
        id,
        keyId: `${id}#main-key`,
        inbox: `${id}/inbox`,
        followers: `${id}/followers`,
        publicKeyPem: key.publicKeyPem,
        privateKey: key.privateKey,
        doc: {
          "@context": [AS, "https://w3id.org/security/v1"],
          id,
          type: opts.type ?? "Person",
          preferredUsername: username,
          name: username.toUpperCase(),
          summary: `<p>I am ${username}</p>`,
          url: `${origin}/@${username}`,
          inbox: `${id}/inbox`,
          outbox: `${id}/outbox`,
          followers: `${id}/followers`,
          following: `${id}/following`,
          manuallyApprovesFollowers: opts.locked ?? false,
          publicKey: { id: `${id}#main-key`, owner: id, publicKeyPem: key.publicKeyPem },
          ...(opts.sharedInbox === false ? {} : { endpoints: { sharedInbox: `${origin}/inbox` } }),
          ...opts.extra,
        },
      };
      actors.set(username.toLowerCase(), actor);
      return actor;
    },
    serve(path, doc) {
      if (doc === null) docs.delete(path);
      else docs.set(path, doc);
    },
    serveFile(path, body, contentType) {
      files.set(path, { body: Buffer.from(body), type: contentType });
    },
    waitFor(pred, timeoutMs = 10_000) {
      const found = received.find(pred);
      if (found) return Promise.resolve(found);
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`no matching delivery within ${timeoutMs} ms; got: ${received.map((d) => d.body?.type).join(", ")}`)), timeoutMs);
        waiters.push({
          pred,
          resolve: (d) => {
            clearTimeout(timer);
            resolve(d);
          },
        });
      });
    },
    async post(url, activity, actor, opts = {}) {
      const body = JSON.stringify(activity);
      const headers = opts.unsigned
        ? { "content-type": opts.contentType ?? "application/activity+json", digest: digestOf(body), date: new Date().toUTCString() }
        : cavageHeaders("POST", url, body, opts.keyId ?? actor.keyId, opts.privateKey ?? actor.privateKey, opts);
      if (opts.digest) headers.digest = opts.digest;
      const { host: _host, ...send } = headers as Record<string, string>;
      const res = await fetch(url, { method: "POST", headers: send, body });
      return { status: res.status, text: await res.text() };
    },
    async get(url, actor, opts = {}) {
      const headers: Record<string, string> = opts.unsigned
        ? {}
        : cavageHeaders("GET", url, undefined, opts.keyId ?? actor.keyId, opts.privateKey ?? actor.privateKey, opts);
      delete headers.host;
      headers.accept = "application/activity+json";
      const res = await fetch(url, { headers, redirect: "manual" });
      const text = await res.text();
      let json: any;
      try {
        json = JSON.parse(text);
      } catch {
        json = undefined;
      }
      return { status: res.status, headers: res.headers, text, json };
    },
    close() {
      return new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
    },
  };
  return remote;
}

/** Polls `fn` until it returns a truthy value (cross-process effects: jobs run on their own). */
export async function eventually<T>(fn: () => Promise<T> | T, timeoutMs = 10_000, what = "condition"): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const v = await fn();
      if (v) return v;
      last = v;
    } catch (e) {
      last = e;
    }
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}: ${last instanceof Error ? last.message : JSON.stringify(last)}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}
