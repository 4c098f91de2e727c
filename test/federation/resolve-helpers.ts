// A programmable HTTP peer for discovery tests: each path answers what the test says (status,
// content type, body), so WebFinger, host-meta and split-domain setups can be shaped freely.
// Documents of the fake remote (test/helpers/fake-remote.ts) are fixed in shape; this is not.
import { createServer, type Server } from "node:http";

export interface StubAnswer {
  status?: number;
  type?: string;
  body?: unknown;
  headers?: Record<string, string>;
}

export type StubRoute = StubAnswer | ((url: URL) => StubAnswer);

export interface StubPeer {
  /** `127.0.0.1:PORT` */
  domain: string;
  /** `http://127.0.0.1:PORT` */
  origin: string;
  /** Sets the answer for a path (`/.well-known/webfinger` matches whatever its query). */
  route(path: string, answer: StubRoute): void;
  /** `path?query` of every request, in order, with whether it carried a Signature header. */
  requests: { path: string; signed: boolean; accept: string }[];
  close(): Promise<void>;
}

export const AS = "https://www.w3.org/ns/activitystreams";
export const AP_JSON = "application/activity+json; charset=utf-8";
export const JRD = "application/jrd+json; charset=utf-8";

export async function startStubPeer(): Promise<StubPeer> {
  const routes = new Map<string, StubRoute>();
  const requests: StubPeer["requests"] = [];
  let origin = "";
  const server: Server = createServer((req, res) => {
    const url = new URL(req.url ?? "/", origin);
    requests.push({ path: url.pathname + url.search, signed: !!req.headers.signature, accept: String(req.headers.accept ?? "") });
    const route = routes.get(url.pathname);
    const a: StubAnswer = route === undefined ? { status: 404 } : typeof route === "function" ? route(url) : route;
    const body = a.body === undefined ? "" : typeof a.body === "string" ? a.body : JSON.stringify(a.body);
    res.writeHead(a.status ?? 200, { ...(a.body !== undefined ? { "content-type": a.type ?? AP_JSON } : {}), ...a.headers });
    res.end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", () => resolve()));
  const addr = server.address();
  const port = typeof addr === "object" && addr ? addr.port : 0;
  const domain = `127.0.0.1:${port}`;
  origin = `http://${domain}`;
  return {
    domain,
    origin,
    requests,
    route: (path, answer) => routes.set(path, answer),
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

/** A WebFinger answer (JRD) binding `subject` to `self`. */
export function jrd(subject: string, self: string, selfType = "application/activity+json"): StubAnswer {
  return { type: JRD, body: { subject, aliases: [self], links: [{ rel: "self", type: selfType, href: self }] } };
}

/** A minimal actor document as Mastodon would serve it. */
export function actorDoc(id: string, username: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    "@context": [AS, "https://w3id.org/security/v1"],
    id,
    type: "Person",
    preferredUsername: username,
    inbox: `${id}/inbox`,
    ...extra,
  };
}
