// Stand-ins for remote fediverse servers in the federation benchmarks: real HTTP servers on
// loopback addresses. `startActorHost` serves actors with real RSA keys (WebFinger + actor
// documents) and signs requests as they would, independently of roost's signing code
// (draft-cavage rsa-sha256 with Digest, as Mastodon sends). `startSink` plays many instances at
// once, one address of 127/8 each, and records every delivery it gets.
import { createHash, generateKeyPair, type KeyObject, sign } from "node:crypto";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { promisify } from "node:util";

const AS = "https://www.w3.org/ns/activitystreams";
export const PUBLIC = `${AS}#Public`;

export interface BenchActor {
  username: string;
  id: string;
  keyId: string;
  privateKey: KeyObject;
  followers: string;
  /** The actor document as served (and as seeded into roost). */
  doc: Record<string, unknown>;
}

/** A Mastodon-shaped actor document (Person with a shared inbox). */
export function actorDoc(origin: string, username: string, publicKeyPem: string): Record<string, unknown> {
  const id = `${origin}/users/${username}`;
  return {
    "@context": [AS, "https://w3id.org/security/v1"],
    id,
    type: "Person",
    preferredUsername: username,
    name: username,
    url: `${origin}/@${username}`,
    inbox: `${id}/inbox`,
    outbox: `${id}/outbox`,
    followers: `${id}/followers`,
    following: `${id}/following`,
    manuallyApprovesFollowers: false,
    publicKey: { id: `${id}#main-key`, owner: id, publicKeyPem },
    endpoints: { sharedInbox: `${origin}/inbox` },
  };
}

export async function rsaKey(): Promise<{ publicKeyPem: string; privateKey: KeyObject }> {
  const { publicKey, privateKey } = await promisify(generateKeyPair)("rsa", { modulusLength: 2048 });
  return { publicKeyPem: publicKey.export({ type: "spki", format: "pem" }).toString(), privateKey };
}

const signAsync = promisify(sign);

/**
 * Headers of a draft-cavage signed POST, as Mastodon signs it. The RSA step runs in libuv's
 * thread pool (async crypto.sign), so a batch of them uses every core.
 */
export async function signedPostHeaders(url: string, body: string, keyId: string, key: KeyObject, date = new Date()): Promise<Record<string, string>> {
  const u = new URL(url);
  const h: Record<string, string> = {
    host: u.host,
    date: date.toUTCString(),
    digest: "SHA-256=" + createHash("sha256").update(body).digest("base64"),
    "content-type": "application/activity+json",
  };
  const names = ["(request-target)", "host", "date", "digest", "content-type"];
  const text = names.map((n) => (n === "(request-target)" ? `(request-target): post ${u.pathname}` : `${n}: ${h[n]}`)).join("\n");
  const signature = (await signAsync("sha256", Buffer.from(text), key)).toString("base64");
  h.signature = `keyId="${keyId}",algorithm="rsa-sha256",headers="${names.join(" ")}",signature="${signature}"`;
  return h;
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  return Buffer.concat(chunks).toString("utf8");
}

const listen = (server: Server, port: number, host: string) =>
  new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, host, () => {
      server.off("error", reject);
      resolve();
    });
  });

const closeServer = (server: Server) =>
  new Promise<void>((resolve) => {
    server.close(() => resolve());
    server.closeAllConnections();
  });

export interface ActorHost {
  origin: string;
  domain: string;
  actors: BenchActor[];
  /** POSTs received (roost's Follow requests of the seed, for instance). */
  posts: number;
  close(): Promise<void>;
}

/** One remote server on 127.0.0.1 with `count` actors, each with its own key. */
export async function startActorHost(count: number): Promise<ActorHost> {
  const byPath = new Map<string, BenchActor>();
  const server = createServer((req, res) => void handle(req, res));
  await listen(server, 0, "127.0.0.1");
  const domain = `127.0.0.1:${(server.address() as AddressInfo).port}`;
  const origin = `http://${domain}`;
  const host: ActorHost = {
    origin,
    domain,
    actors: [],
    posts: 0,
    close: () => closeServer(server),
  };
  for (let i = 0; i < count; i++) {
    const key = await rsaKey();
    const doc = actorDoc(origin, `peer${i}`, key.publicKeyPem);
    const id = doc.id as string;
    const actor: BenchActor = { username: `peer${i}`, id, keyId: `${id}#main-key`, privateKey: key.privateKey, followers: `${id}/followers`, doc };
    host.actors.push(actor);
    byPath.set(new URL(id).pathname, actor);
  }

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    await readBody(req);
    const url = new URL(req.url ?? "/", origin);
    if (req.method === "POST") {
      host.posts++;
      res.writeHead(202).end();
      return;
    }
    if (url.pathname === "/.well-known/webfinger") {
      const m = /^acct:([^@]+)@/.exec(url.searchParams.get("resource") ?? "");
      const actor = m && host.actors.find((a) => a.username === m[1]);
      if (!actor) return void res.writeHead(404).end();
      res.writeHead(200, { "content-type": "application/jrd+json" });
      res.end(JSON.stringify({ subject: `acct:${actor.username}@${domain}`, links: [{ rel: "self", type: "application/activity+json", href: actor.id }] }));
      return;
    }
    const actor = byPath.get(url.pathname);
    if (!actor) return void res.writeHead(404).end();
    res.writeHead(200, { "content-type": "application/activity+json" });
    res.end(JSON.stringify(actor.doc));
  }
  return host;
}

export interface Arrival {
  /** `127.0.0.N:PORT`: which instance it reached. */
  host: string;
  path: string;
  /** performance.now() at arrival. */
  at: number;
  type: string | undefined;
  /** The activity's object id (or the object itself when it is a string). */
  object: string | undefined;
  signed: boolean;
}

export interface Sink {
  port: number;
  /** `127.0.0.N:PORT` of each simulated instance. */
  hosts: string[];
  arrivals: Arrival[];
  /** GET requests (roost fetching something from a peer). */
  gets: number;
  close(): Promise<void>;
}

/**
 * `count` instances on 127.0.0.2 … 127.0.0.(count+1), one listener per address on one port
 * (the whole 127/8 is loopback on Linux). Every POST is answered 202 and recorded.
 */
export async function startSink(count: number): Promise<Sink> {
  const arrivals: Arrival[] = [];
  const sink: Sink = { port: 0, hosts: [], arrivals, gets: 0, close: async () => {} };
  const handler = async (req: IncomingMessage, res: ServerResponse) => {
    const raw = await readBody(req);
    if (req.method !== "POST") {
      sink.gets++;
      res.writeHead(404).end();
      return;
    }
    const at = performance.now();
    let body: { type?: string; object?: unknown } = {};
    try {
      body = JSON.parse(raw) as typeof body;
    } catch {
      // Recorded with no type: a malformed delivery shows up as such in the counts.
    }
    const obj = body.object;
    const object = typeof obj === "string" ? obj : typeof obj === "object" && obj !== null ? (obj as { id?: string }).id : undefined;
    arrivals.push({ host: req.headers.host ?? "", path: req.url ?? "", at, type: body.type, object, signed: typeof req.headers.signature === "string" });
    res.writeHead(202).end();
  };

  for (let attempt = 1; ; attempt++) {
    const servers: Server[] = [];
    try {
      // The first listener picks a free port; the others take the same port on their address.
      let port = 0;
      for (let i = 0; i < count; i++) {
        const server = createServer((req, res) => void handler(req, res));
        servers.push(server);
        await listen(server, port, `127.0.0.${i + 2}`);
        port = (server.address() as AddressInfo).port;
      }
      sink.port = port;
      sink.hosts = servers.map((_, i) => `127.0.0.${i + 2}:${port}`);
      sink.close = async () => {
        await Promise.all(servers.map(closeServer));
      };
      return sink;
    } catch (e) {
      await Promise.all(servers.filter((s) => s.listening).map(closeServer));
      if ((e as NodeJS.ErrnoException).code !== "EADDRINUSE" || attempt >= 5) throw e;
    }
  }
}
