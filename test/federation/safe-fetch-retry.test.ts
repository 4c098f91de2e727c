// safeFetch on connections the peer closed without saying so: a request that fails on a reused
// connection before any answer is sent once more on a new one (GET, and POSTs marked idempotent),
// never after a byte of an answer, never past the deadline; and every failure is logged once.
import { test } from "node:test";
import assert from "node:assert/strict";
import { createServer, type Server } from "node:http";
import { createServer as createNetServer, type AddressInfo, type Socket } from "node:net";
import type { App } from "../../src/app.ts";
import { closeHttpAgents, FetchError, safeFetch } from "../../src/federation/net/safe-fetch.ts";
import { createLog } from "../../src/lib/log.ts";
import { type ClosingConnections, type ClosingMode, closeConnections } from "../helpers/closing-connections.ts";

type After = { after: (fn: () => void | Promise<void>) => void };

interface LogEntry {
  level: string;
  msg: string;
  [k: string]: unknown;
}

function fakeApp(t: After): { app: App; logs: LogEntry[] } {
  const logs: LogEntry[] = [];
  const log = createLog("debug", (line) => logs.push(JSON.parse(line) as LogEntry));
  const app = { config: { allowPrivateAddresses: true }, cache: new Map(), baseUrl: "http://roost.test", log } as unknown as App;
  t.after(() => closeHttpAgents(app));
  return { app, logs };
}

async function listen(t: After, server: Server | ReturnType<typeof createNetServer>): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  t.after(async () => {
    if ("closeAllConnections" in server) server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

/** An HTTP peer answering `<METHOD> <path> <signature header>`, closing connections as `mode` says. */
async function closingPeer(t: After, mode: ClosingMode): Promise<{ base: string; closing: ClosingConnections }> {
  const server = createServer((req, res) => {
    req.resume();
    req.on("end", () => res.writeHead(200, { "content-type": "text/plain" }).end(`${req.method} ${req.url} ${req.headers.signature ?? ""}`.trim()));
  });
  const closing = closeConnections(server, mode);
  return { base: await listen(t, server), closing };
}

/**
 * A raw TCP peer: `onRequest(n, socket)` is called for the n-th request head received (1-based,
 * over all connections), and writes whatever answer the test needs.
 */
async function rawPeer(t: After, onRequest: (n: number, socket: Socket) => void): Promise<{ base: string; requests: () => number }> {
  let n = 0;
  const sockets = new Set<Socket>();
  const server = createNetServer((socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
    socket.on("error", () => {});
    let buffered = "";
    socket.on("data", (chunk) => {
      buffered += chunk.toString("latin1");
      for (let end = buffered.indexOf("\r\n\r\n"); end !== -1; end = buffered.indexOf("\r\n\r\n")) {
        buffered = buffered.slice(end + 4);
        onRequest(++n, socket);
      }
    });
  });
  t.after(() => {
    for (const s of sockets) s.destroy();
  });
  return { base: await listen(t, server), requests: () => n };
}

const OK = "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 2\r\nConnection: keep-alive\r\n\r\nok";

async function failure(p: Promise<unknown>): Promise<FetchError> {
  try {
    await p;
  } catch (err) {
    assert.ok(err instanceof FetchError, `expected a FetchError, got ${String(err)}`);
    return err;
  }
  assert.fail("expected the request to fail");
}

const infoLines = (logs: LogEntry[]) => logs.filter((l) => l.level !== "debug");

test("a peer that closes every connection after answering, unannounced: 50 GETs and 20 deliveries all go through", async (t) => {
  const { app, logs } = fakeApp(t);
  const { base, closing } = await closingPeer(t, "after-response");
  for (let i = 0; i < 50; i++) {
    const res = await safeFetch(app, `${base}/get/${i}`);
    assert.equal(res.body.toString(), `GET /get/${i}`);
  }
  for (let i = 0; i < 20; i++) {
    const res = await safeFetch(app, `${base}/inbox/${i}`, { method: "POST", body: "{}", idempotent: true });
    assert.equal(res.body.toString(), `POST /inbox/${i}`);
  }
  assert.equal(closing.answered, 70, "each request answered once");
  assert.ok(closing.dropped >= 30, `requests were written to closed connections (${closing.dropped}) and sent again`);
  assert.deepEqual(infoLines(logs), [], "nothing failed");
  assert.ok(logs.some((l) => l.level === "debug" && /closed a kept-alive connection/.test(String(l.msg))));
});

test("a peer that closes connections idle for 50 ms: requests right after the close all go through", async (t) => {
  const { app, logs } = fakeApp(t);
  const { base, closing } = await closingPeer(t, "idle");
  for (let i = 0; i < 50; i++) {
    // Every fifth request goes out just as the peer has closed the idle pooled connection.
    if (i % 5 === 0) await closing.allClosed();
    assert.equal((await safeFetch(app, `${base}/get/${i}`)).status, 200);
  }
  for (let i = 0; i < 20; i++) {
    if (i % 5 === 0) await closing.allClosed();
    assert.equal((await safeFetch(app, `${base}/inbox/${i}`, { method: "POST", body: "{}", idempotent: true })).status, 200);
  }
  assert.equal(closing.answered, 70);
  assert.ok(closing.dropped >= 13, `requests raced the idle close (${closing.dropped}) and were sent again`);
  assert.deepEqual(infoLines(logs), []);
});

test("a POST not marked idempotent is not sent again; the failure is logged once with host, URL and reason", async (t) => {
  const { app, logs } = fakeApp(t);
  const { base, closing } = await closingPeer(t, "after-response");
  await safeFetch(app, `${base}/first`, { method: "POST", body: "x" });
  const err = await failure(safeFetch(app, `${base}/second`, { method: "POST", body: "x" }));
  assert.equal(err.kind, "network");
  assert.deepEqual({ answered: closing.answered, dropped: closing.dropped }, { answered: 1, dropped: 1 });
  const lines = infoLines(logs);
  assert.equal(lines.length, 1);
  assert.deepEqual(
    { level: lines[0].level, msg: lines[0].msg, method: lines[0].method, host: lines[0].host, url: lines[0].url },
    { level: "info", msg: "remote request failed", method: "POST", host: new URL(base).host, url: `${base}/second` },
  );
  assert.match(String(lines[0].reason), /closed the kept-alive connection/);
});

test("never sent again once a byte of the answer arrived, nor after a failure on a new connection", async (t) => {
  const { app, logs } = fakeApp(t);
  // The second request (on the reused connection) gets half a status line, then a reset.
  const partial = await rawPeer(t, (n, socket) => (n === 1 ? socket.write(OK) : socket.end("HTTP/1.1 20")));
  assert.equal((await safeFetch(app, `${partial.base}/a`)).body.toString(), "ok");
  await failure(safeFetch(app, `${partial.base}/b`));
  assert.equal(partial.requests(), 2, "not sent a third time");

  // A connection that is reset before answering, though new, is the peer's failure: no retry.
  const reset = await rawPeer(t, (_n, socket) => socket.destroy());
  const err = await failure(safeFetch(app, `${reset.base}/c`));
  assert.equal(err.kind, "network");
  assert.equal(reset.requests(), 1);
  assert.deepEqual(
    infoLines(logs).map((l) => l.url),
    [`${partial.base}/b`, `${reset.base}/c`],
  );
});

test("the new connection of a request sent again is checked by the address guard again", async (t) => {
  const { app } = fakeApp(t);
  const { base, closing } = await closingPeer(t, "after-response");
  const byName = base.replace("127.0.0.1", "localhost");
  await safeFetch(app, `${byName}/a`);
  // The policy tightens between the attempt on the closed connection and the one sent again.
  let signed = 0;
  const sign = () => {
    if (++signed === 2) app.config.allowPrivateAddresses = false;
    return {};
  };
  const err = await failure(safeFetch(app, `${byName}/b`, { sign }));
  assert.equal(err.kind, "private-address", err.message);
  assert.deepEqual({ signed, answered: closing.answered, dropped: closing.dropped }, { signed: 2, answered: 1, dropped: 1 });
});

test("the request sent again is signed again, and stays within the first attempt's deadline", async (t) => {
  const { app } = fakeApp(t);
  const { base } = await closingPeer(t, "after-response");
  let signatures = 0;
  const sign = () => ({ signature: `sig-${++signatures}` });
  assert.equal((await safeFetch(app, `${base}/a`, { sign })).body.toString(), "GET /a sig-1");
  // sig-2 went out on the closed connection; the new one carries a fresh signature.
  assert.equal((await safeFetch(app, `${base}/b`, { sign })).body.toString(), "GET /b sig-3");

  // The peer holds the request on the reused connection for 500 ms before dropping it, then
  // never answers the one sent again: the whole request still ends at its 800 ms deadline
  // (a fresh deadline for the resend would end it at 1,300 ms).
  const slow = await rawPeer(t, (n, socket) => {
    if (n === 1) socket.write(OK);
    else if (n === 2) setTimeout(() => socket.destroy(), 500);
  });
  await safeFetch(app, `${slow.base}/a`);
  const started = Date.now();
  const err = await failure(safeFetch(app, `${slow.base}/b`, { timeoutMs: 800 }));
  const elapsed = Date.now() - started;
  assert.equal(err.kind, "timeout");
  assert.equal(slow.requests(), 3, "sent again after the drop");
  assert.ok(elapsed >= 790 && elapsed < 1250, `ended after ${elapsed} ms`);
});
