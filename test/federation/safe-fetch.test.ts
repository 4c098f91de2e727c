import { test } from "node:test";
import assert from "node:assert/strict";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import { gzipSync } from "node:zlib";
import type { AddressInfo } from "node:net";
import type { App } from "../../src/app.ts";
import { closeHttpAgents, FetchError, isPrivateAddress, safeFetch } from "../../src/federation/net/safe-fetch.ts";
import { createLog } from "../../src/lib/log.ts";
import { ROOST_VERSION } from "../../src/version.ts";

// A minimal App: safeFetch reads only config.allowPrivateAddresses, cache (agents), baseUrl and log.
function fakeApp(allowPrivateAddresses: boolean): App {
  const app = { config: { allowPrivateAddresses }, cache: new Map(), baseUrl: "http://roost.test", log: createLog("silent") };
  return app as unknown as App;
}

interface Peer {
  port: number;
  hits: string[];
  received: IncomingMessage[];
  bodies: string[];
}

const BIG = Buffer.alloc(5000, "x");

function route(peer: Peer, req: IncomingMessage, res: ServerResponse, body: string): void {
  const url = new URL(req.url ?? "/", "http://x");
  const redirect = url.pathname.match(/^\/redirect\/(\d+)$/);
  if (redirect) {
    const n = Number(redirect[1]);
    res.writeHead(302, { location: n > 1 ? `/redirect/${n - 1}` : "/hello" }).end();
  } else if (url.pathname === "/hello") res.writeHead(200, { "content-type": "text/plain" }).end("hello");
  else if (url.pathname === "/echo") res.writeHead(200).end(`${req.method} ${req.headers["content-type"]} ${body}`);
  else if (url.pathname === "/to-localhost") res.writeHead(302, { location: `http://localhost:${peer.port}/hello` }).end();
  else if (url.pathname === "/to-mapped") res.writeHead(301, { location: `http://[::ffff:127.0.0.1]:${peer.port}/hello` }).end();
  else if (url.pathname === "/to-file") res.writeHead(302, { location: "file:///etc/passwd" }).end();
  else if (url.pathname === "/big-cl") res.writeHead(200, { "content-length": String(BIG.length) }).end(BIG);
  else if (url.pathname === "/big-chunked") {
    res.writeHead(200); // no Content-Length: chunked, so only counting can stop it
    for (let i = 0; i < 5; i++) res.write(BIG.subarray(i * 1000, (i + 1) * 1000));
    res.end();
  } else if (url.pathname === "/gzip") res.writeHead(200, { "content-encoding": "gzip" }).end(gzipSync('{"ok":true}'));
  else if (url.pathname === "/gzip-bomb") res.writeHead(200, { "content-encoding": "gzip" }).end(gzipSync(Buffer.alloc(2 * 1024 * 1024)));
  else if (url.pathname === "/slow") res.writeHead(200).write("partial"); // never ends
  else res.writeHead(404).end();
}

async function startPeer(t: { after: (fn: () => void | Promise<void>) => void }): Promise<Peer> {
  const peer: Peer = { port: 0, hits: [], received: [], bodies: [] };
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      peer.hits.push(req.url ?? "");
      peer.received.push(req);
      route(peer, req, res, Buffer.concat(chunks).toString());
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  peer.port = (server.address() as AddressInfo).port;
  t.after(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });
  return peer;
}

async function refusal(p: Promise<unknown>): Promise<FetchError> {
  try {
    await p;
  } catch (err) {
    assert.ok(err instanceof FetchError, `expected a FetchError, got ${String(err)}`);
    return err;
  }
  assert.fail("expected the request to be refused");
}

test("isPrivateAddress covers every AP §14 range, and only those", () => {
  const privateOnes = [
    "0.0.0.0", "0.255.255.255", "10.0.0.1", "10.255.255.255", "100.64.0.1", "100.127.255.255",
    "127.0.0.1", "127.255.255.254", "169.254.169.254", "172.16.0.1", "172.31.255.255",
    "192.0.0.8", "192.0.2.1", "192.88.99.1", "192.168.1.1", "198.18.0.1", "198.19.255.255",
    "198.51.100.7", "203.0.113.9", "224.0.0.1", "239.255.255.250", "240.0.0.1", "255.255.255.255",
    "::", "::1", "64:ff9b::8.8.8.8", "64:ff9b:1::1", "100::1", "2001::1", "2001:10::1", "2001:1f::1",
    "2001:20::1", "2001:2f::1", "2001:db8::1", "2002:c000:0204::1", "3fff::1", "3fff:fff::1",
    "fc00::1", "fd12:3456::1", "fe80::1", "febf::1", "ff02::1",
    // IPv4-mapped IPv6, checked as IPv4, dotted and hex forms
    "::ffff:127.0.0.1", "::ffff:7f00:1", "::ffff:10.1.2.3", "::ffff:a9fe:a9fe",
    // bracketed and zoned forms, and things that are not addresses (fail closed)
    "[::1]", "fe80::1%eth0", "localhost", "", "1.2.3",
  ];
  const publicOnes = [
    "1.1.1.1", "8.8.8.8", "9.255.255.255", "11.0.0.0", "100.63.255.255", "100.128.0.0",
    "126.255.255.255", "128.0.0.0", "169.253.255.255", "172.15.255.255", "172.32.0.0",
    "192.0.1.1", "192.0.3.1", "192.88.98.1", "192.169.0.1", "198.17.255.255", "198.20.0.0",
    "198.51.101.1", "203.0.114.1", "223.255.255.255",
    "2606:4700:4700::1111", "2001:4860:4860::8888", "2001:30::1", "2001:db9::1", "2003::1",
    "3ffe::1", "3fff:1000::1", "64:ff9b:2::1", "fe00::1", "fec0::1", "::ffff:8.8.8.8", "::ffff:101:101",
  ];
  for (const ip of privateOnes) assert.equal(isPrivateAddress(ip), true, `${ip} should be private`);
  for (const ip of publicOnes) assert.equal(isPrivateAddress(ip), false, `${ip} should be public`);
});

test("private addresses are refused before any byte is sent", async (t) => {
  const peer = await startPeer(t);
  const app = fakeApp(false);
  t.after(() => closeHttpAgents(app));
  for (const host of ["127.0.0.1", "localhost", "site.localhost", "a.b.LOCALHOST.", "[::1]", "[::ffff:127.0.0.1]", "[::ffff:7f00:1]", "10.0.0.1", "169.254.169.254"]) {
    const err = await refusal(safeFetch(app, `http://${host}:${peer.port}/hello`, { timeoutMs: 2000 }));
    assert.equal(err.kind, "private-address", `${host}: ${err.message}`);
  }
  assert.deepEqual(peer.hits, []);
});

test("allowed when allowPrivateAddresses; sends a User-Agent and returns status, headers and body", async (t) => {
  const peer = await startPeer(t);
  const app = fakeApp(true);
  t.after(() => closeHttpAgents(app));
  const res = await safeFetch(app, `http://127.0.0.1:${peer.port}/hello`, { headers: { Accept: "text/plain" } });
  assert.equal(res.status, 200);
  assert.equal(res.body.toString(), "hello");
  assert.equal(res.headers.get("content-type"), "text/plain");
  assert.equal(res.url, `http://127.0.0.1:${peer.port}/hello`);
  assert.equal(peer.received[0].headers["user-agent"], `roost/${ROOST_VERSION} (+http://roost.test/)`);
  assert.equal(peer.received[0].headers.accept, "text/plain");

  const viaName = await safeFetch(app, `http://localhost:${peer.port}/hello`);
  assert.equal(viaName.body.toString(), "hello");

  const missing = await safeFetch(app, `http://127.0.0.1:${peer.port}/nope`);
  assert.equal(missing.status, 404); // a status is returned, not thrown
});

test("a POST carries its body and is never redirected", async (t) => {
  const peer = await startPeer(t);
  const app = fakeApp(true);
  t.after(() => closeHttpAgents(app));
  const echo = await safeFetch(app, `http://127.0.0.1:${peer.port}/echo`, {
    method: "POST",
    headers: { "Content-Type": "application/activity+json" },
    body: '{"a":1}',
  });
  assert.equal(echo.body.toString(), 'POST application/activity+json {"a":1}');
  const redirected = await safeFetch(app, `http://127.0.0.1:${peer.port}/redirect/1`, { method: "POST", body: "x" });
  assert.equal(redirected.status, 302);
  assert.deepEqual(peer.hits, ["/echo", "/redirect/1"]);
});

test("only http and https URLs", async () => {
  const app = fakeApp(true);
  for (const url of ["ftp://example.com/x", "file:///etc/passwd", "javascript:alert(1)", "not a url", "http://abc.onion/"]) {
    assert.equal((await refusal(safeFetch(app, url))).kind, "invalid-url", url);
  }
});

test("redirects: followed up to the limit, each hop signed again for its URL", async (t) => {
  const peer = await startPeer(t);
  const app = fakeApp(true);
  t.after(() => closeHttpAgents(app));
  const signed: string[] = [];
  const sign = (url: URL) => {
    signed.push(url.pathname);
    return { signature: `for ${url.pathname}` };
  };
  const res = await safeFetch(app, `http://127.0.0.1:${peer.port}/redirect/3`, { sign });
  assert.equal(res.status, 200);
  assert.equal(res.body.toString(), "hello");
  assert.equal(res.url, `http://127.0.0.1:${peer.port}/hello`);
  assert.deepEqual(signed, ["/redirect/3", "/redirect/2", "/redirect/1", "/hello"]);
  assert.deepEqual(
    peer.received.map((r) => r.headers.signature),
    ["for /redirect/3", "for /redirect/2", "for /redirect/1", "for /hello"],
  );

  const tooMany = await refusal(safeFetch(app, `http://127.0.0.1:${peer.port}/redirect/4`));
  assert.equal(tooMany.kind, "too-many-redirects");
  const none = await refusal(safeFetch(app, `http://127.0.0.1:${peer.port}/redirect/1`, { maxRedirects: 0 }));
  assert.equal(none.kind, "too-many-redirects");
  const toFile = await refusal(safeFetch(app, `http://127.0.0.1:${peer.port}/to-file`));
  assert.equal(toFile.kind, "invalid-url");
});

test("a redirect target is checked again, by name (at connect) and by literal", async (t) => {
  const peer = await startPeer(t);
  for (const path of ["/to-localhost", "/to-mapped"]) {
    // The first hop is allowed; the policy then tightens before the redirected hop, which must
    // be judged on its own rather than inherit the first hop's approval.
    const app = fakeApp(true);
    t.after(() => closeHttpAgents(app));
    let hops = 0;
    const sign = () => {
      if (++hops === 2) app.config.allowPrivateAddresses = false;
      return {};
    };
    const err = await refusal(safeFetch(app, `http://127.0.0.1:${peer.port}${path}`, { sign, timeoutMs: 2000 }));
    assert.equal(err.kind, "private-address", `${path}: ${err.message}`);
  }
  assert.deepEqual(peer.hits, ["/to-localhost", "/to-mapped"]);
});

test("body limit: Content-Length first, then counted while streaming, then after decoding", async (t) => {
  const peer = await startPeer(t);
  const app = fakeApp(true);
  t.after(() => closeHttpAgents(app));
  const base = `http://127.0.0.1:${peer.port}`;
  assert.equal((await refusal(safeFetch(app, `${base}/big-cl`, { maxBytes: 4999 }))).kind, "too-large");
  assert.equal((await refusal(safeFetch(app, `${base}/big-chunked`, { maxBytes: 4999 }))).kind, "too-large");
  assert.equal((await safeFetch(app, `${base}/big-chunked`, { maxBytes: 5000 })).body.length, 5000);
  assert.equal((await safeFetch(app, `${base}/big-cl`, { maxBytes: 5000 })).body.length, 5000);
  // 2 MiB of zeros compresses to ~2 KB: the decoded size is what counts (default limit 1 MiB).
  assert.equal((await refusal(safeFetch(app, `${base}/gzip-bomb`))).kind, "too-large");
});

test("gzip bodies are decoded", async (t) => {
  const peer = await startPeer(t);
  const app = fakeApp(true);
  t.after(() => closeHttpAgents(app));
  const res = await safeFetch(app, `http://127.0.0.1:${peer.port}/gzip`);
  assert.deepEqual(JSON.parse(res.body.toString()), { ok: true });
  assert.equal(peer.received[0].headers["accept-encoding"], "gzip, deflate, br");
});

test("the whole-request deadline aborts a response that never ends", async (t) => {
  const peer = await startPeer(t);
  const app = fakeApp(true);
  t.after(() => closeHttpAgents(app));
  const started = Date.now();
  const err = await refusal(safeFetch(app, `http://127.0.0.1:${peer.port}/slow`, { timeoutMs: 300 }));
  assert.equal(err.kind, "timeout");
  const elapsed = Date.now() - started;
  assert.ok(elapsed >= 290 && elapsed < 3000, `took ${elapsed} ms`);
});

test("closeHttpAgents drops the app's agents", async (t) => {
  const peer = await startPeer(t);
  const app = fakeApp(true);
  await safeFetch(app, `http://127.0.0.1:${peer.port}/hello`);
  assert.equal(app.cache.size, 1);
  closeHttpAgents(app);
  assert.equal(app.cache.size, 0);
});

test("truncateBody: over the limit the status comes back with the body cut, not an error", async (t) => {
  const peer = await startPeer(t);
  const app = fakeApp(true);
  t.after(() => closeHttpAgents(app));
  const base = `http://127.0.0.1:${peer.port}`;
  for (const path of ["/big-cl", "/big-chunked"]) {
    const r = await safeFetch(app, `${base}${path}`, { maxBytes: 1500, truncateBody: true });
    assert.equal(r.status, 200, path);
    assert.ok(r.body.length <= 1500, `${path}: ${r.body.length} bytes kept`);
  }
  // The connection was dropped mid-body; the next request still works.
  assert.equal((await safeFetch(app, `${base}/hello`)).body.toString(), "hello");
});
