// Remote servers for the backfill benchmark: each serves its actors (WebFinger + actor
// documents with real keys), documents made on demand by the scenario (notes, `replies`
// collections, outboxes), optionally slowly, and answers a Follow of one of its actors with a
// signed Accept, as an unlocked Mastodon account does.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { actorDoc, type BenchActor, rsaKey, signedPostHeaders } from "./peers.ts";

const AS = "https://www.w3.org/ns/activitystreams";

export interface DocHost {
  origin: string;
  domain: string;
  actor(username: string): Promise<BenchActor>;
  /** The document at a path (with its query), made when asked; undefined answers 404. */
  docs: (path: string) => Record<string, unknown> | undefined;
  /** Milliseconds before a GET of `path` is answered. */
  delay: (path: string) => number;
  /** GETs served. */
  gets: number;
  close(): Promise<void>;
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  return Buffer.concat(chunks).toString("utf8");
}

export async function startDocHost(): Promise<DocHost> {
  const actors = new Map<string, BenchActor>();
  const server: Server = createServer((req, res) => void handle(req, res).catch(() => res.writeHead(500).end()));
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", () => resolve()));
  const domain = `127.0.0.1:${(server.address() as AddressInfo).port}`;
  const origin = `http://${domain}`;
  const host: DocHost = {
    origin,
    domain,
    gets: 0,
    docs: () => undefined,
    delay: () => 0,
    async actor(username) {
      const key = await rsaKey();
      const doc = actorDoc(origin, username, key.publicKeyPem);
      const id = doc.id as string;
      const a: BenchActor = { username, id, keyId: `${id}#main-key`, privateKey: key.privateKey, followers: `${id}/followers`, doc };
      actors.set(new URL(id).pathname, a);
      return a;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };

  /** Accepts a Follow of one of its actors (after answering the delivery, as a queue would). */
  async function accept(follow: Record<string, any>): Promise<void> {
    const target = typeof follow.object === "string" ? actors.get(new URL(follow.object).pathname) : undefined;
    if (!target || typeof follow.actor !== "string") return;
    const inbox = `${new URL(follow.actor).origin}/inbox`;
    const body = JSON.stringify({ "@context": AS, id: `${target.id}#accepts/${Date.now()}`, type: "Accept", actor: target.id, object: follow });
    const { host: _h, ...headers } = await signedPostHeaders(inbox, body, target.keyId, target.privateKey);
    await fetch(inbox, { method: "POST", headers, body });
  }

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const raw = await readBody(req);
    const url = new URL(req.url ?? "/", origin);
    if (req.method === "POST") {
      res.writeHead(202).end();
      try {
        const activity = JSON.parse(raw);
        if (activity?.type === "Follow") setTimeout(() => void accept(activity).catch(() => {}), 1);
      } catch {
        // not ours to judge
      }
      return;
    }
    host.gets++;
    const wait = host.delay(url.pathname + url.search);
    if (wait > 0) await new Promise((r) => setTimeout(r, wait).unref());
    if (url.pathname === "/.well-known/webfinger") {
      const m = /^acct:([^@]+)@/.exec(url.searchParams.get("resource") ?? "");
      const actor = m && [...actors.values()].find((a) => a.username === m[1]);
      if (!actor) return void res.writeHead(404).end();
      res.writeHead(200, { "content-type": "application/jrd+json" });
      res.end(JSON.stringify({ subject: `acct:${actor.username}@${domain}`, links: [{ rel: "self", type: "application/activity+json", href: actor.id }] }));
      return;
    }
    const doc = actors.get(url.pathname)?.doc ?? host.docs(url.pathname + url.search);
    if (!doc) return void res.writeHead(404).end();
    res.writeHead(200, { "content-type": "application/activity+json" });
    res.end(JSON.stringify(doc));
  }
  return host;
}
