// Streaming clients for the `streaming` scenario: WebSockets (`ws`, as Elk and masto.js use)
// and SSE responses read with node:http, each counting what it receives.
import { request, type ClientRequest, type IncomingMessage } from "node:http";
import WebSocket from "ws";

export interface StreamClient {
  /** Called with each raw frame (WebSocket) or chunk (SSE) and the time it arrived. */
  onData?: (text: string, at: number) => void;
  send(frame: unknown): void;
  close(): void;
}

/** Opens a WebSocket with the token as sub-protocol (browser style); resolves once open. */
export function openWebSocket(base: string, token: string, subscriptions: unknown[]): Promise<StreamClient> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(base.replace(/^http/, "ws") + "/api/v1/streaming", token, { perMessageDeflate: false });
    const client: StreamClient = {
      send: (frame) => ws.send(JSON.stringify(frame)),
      close: () => ws.terminate(),
    };
    ws.on("message", (data) => client.onData?.(String(data), performance.now()));
    ws.once("open", () => {
      for (const s of subscriptions) client.send(s);
      resolve(client);
    });
    ws.once("error", reject);
  });
}

/** Opens an SSE stream (`path` with its query); resolves once the response headers arrived. */
export function openEventStream(base: string, token: string, path: string): Promise<StreamClient> {
  return new Promise((resolve, reject) => {
    let res: IncomingMessage | undefined;
    const req: ClientRequest = request(base + path, { agent: false, headers: { authorization: `Bearer ${token}`, accept: "text/event-stream" } }, (r) => {
      res = r;
      if (r.statusCode !== 200) {
        r.resume();
        reject(new Error(`${path} → ${r.statusCode}`));
        return;
      }
      r.setEncoding("utf8");
      const client: StreamClient = {
        send: () => {},
        close: () => req.destroy(),
      };
      r.on("data", (chunk: string) => client.onData?.(chunk, performance.now()));
      r.on("error", () => {});
      resolve(client);
    });
    req.on("error", (e) => (res ? undefined : reject(e)));
    req.end();
  });
}

/** Runs `open` for 0..n-1, `parallel` at a time. */
export async function openMany<T>(n: number, parallel: number, open: (i: number) => Promise<T>): Promise<T[]> {
  const out: T[] = new Array(n);
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(parallel, n) }, async () => {
      while (next < n) {
        const i = next++;
        out[i] = await open(i);
      }
    }),
  );
  return out;
}
