// Servers that close kept-alive connections without saying so: no `Connection: close`, no
// `Keep-Alive: timeout` hint (snac2, some proxies). Across a real network the close reaches the
// client late, so a request it writes meanwhile is lost with the connection. On loopback the
// close would arrive at once, so it is modelled at its worst: a closed connection stays up until
// the client writes on it again, and then it is destroyed with that request unanswered (the
// request never reaches the handler).
import type { IncomingMessage, Server, ServerResponse } from "node:http";
import type { Socket } from "node:net";

/** `after-response`: every connection is closed once it has answered. `idle`: after 50 ms idle. */
export type ClosingMode = "after-response" | "idle";

export const IDLE_CLOSE_MS = 50;

export interface ClosingConnections {
  /** Requests lost on a connection the server had closed. */
  dropped: number;
  /** Requests answered. */
  answered: number;
  /** Resolves once every connection still open has been closed by the server (idle mode: 50 ms). */
  allClosed(): Promise<void>;
}

/** Makes `server` close its connections as `mode` says; call it right after createServer. */
export function closeConnections(server: Server, mode: ClosingMode): ClosingConnections {
  const open = new Set<Socket>(); // connected and not closed by the server yet
  const closed = new WeakSet<Socket>();
  const idleTimers = new Map<Socket, NodeJS.Timeout>();
  let waiters: (() => void)[] = [];
  const state: ClosingConnections = {
    dropped: 0,
    answered: 0,
    allClosed: () => new Promise<void>((resolve) => (open.size === 0 ? resolve() : waiters.push(resolve))),
  };
  const settle = () => {
    if (open.size > 0) return;
    const w = waiters;
    waiters = [];
    for (const resolve of w) resolve();
  };
  const close = (s: Socket) => {
    clearTimeout(idleTimers.get(s));
    idleTimers.delete(s);
    closed.add(s);
    open.delete(s);
    settle();
  };
  const idleClose = (s: Socket) => {
    clearTimeout(idleTimers.get(s));
    idleTimers.set(s, setTimeout(() => close(s), IDLE_CLOSE_MS));
  };

  server.keepAliveTimeout = 0; // Node would otherwise announce its own timeout
  server.on("connection", (s: Socket) => {
    open.add(s);
    s.on("close", () => {
      clearTimeout(idleTimers.get(s));
      idleTimers.delete(s);
      open.delete(s);
      settle();
    });
    if (mode === "idle") idleClose(s);
  });
  const handlers = server.listeners("request") as ((req: IncomingMessage, res: ServerResponse) => void)[];
  server.removeAllListeners("request");
  server.on("request", (req: IncomingMessage, res: ServerResponse) => {
    const s = req.socket;
    if (closed.has(s)) {
      state.dropped++;
      s.destroy();
      return;
    }
    clearTimeout(idleTimers.get(s));
    res.on("finish", () => {
      state.answered++;
      if (mode === "after-response") close(s);
      else idleClose(s);
    });
    for (const h of handlers) h.call(server, req, res);
  });
  return state;
}
