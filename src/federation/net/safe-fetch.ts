// Outgoing HTTP for federation (AP §14): every request to another server goes through here.
// node:http rather than global fetch: the guarded `lookup` must run for the very connection
// that is opened (no DNS-rebinding gap between a check and the connect).
import { createWriteStream } from "node:fs";
import http, { type IncomingMessage } from "node:http";
import https from "node:https";
import { isIP, type Socket } from "node:net";
import type { Readable } from "node:stream";
import { createBrotliDecompress, createGunzip, createInflate } from "node:zlib";
import type { App } from "../../app.ts";
import { ROOST_VERSION } from "../../version.ts";
import { AddressRefused, guardedLookup, isPrivateAddress } from "./address-guard.ts";

export { isPrivateAddress };

export type FetchErrorKind =
  | "invalid-url"
  | "private-address"
  | "dns"
  | "timeout"
  | "too-large"
  | "too-many-redirects"
  | "network";

export class FetchError extends Error {
  override name = "FetchError";
  constructor(
    readonly kind: FetchErrorKind,
    message: string,
  ) {
    super(message);
  }
}

export interface SafeRequest {
  method?: "GET" | "POST";
  headers?: Record<string, string>;
  body?: string | Buffer;
  /** Largest response body read; default 1 MiB. Content-Length is checked first, then counted. */
  maxBytes?: number;
  /**
   * Beyond maxBytes, stop reading and answer with the body cut there instead of failing: for
   * callers that only need the status (deliveries, whose inboxes may send a long error page).
   */
  truncateBody?: boolean;
  /**
   * Writes the body to this file instead of holding it in memory (remote video and audio,
   * up to ~100 MB); `body` is then empty. The same limits apply. The caller removes the file,
   * whatever the outcome.
   */
  saveTo?: string;
  /** Whole-request deadline in ms; default 30 s (connect 5 s, idle read 10 s). */
  timeoutMs?: number;
  /** Redirects followed (GET only); default 3. POSTs never follow redirects. */
  maxRedirects?: number;
  /**
   * Extra headers for each hop, computed for the URL about to be requested (a redirected GET
   * is signed again for its new URL).
   */
  sign?: (url: URL, headers: Record<string, string>) => Promise<Record<string, string>> | Record<string, string>;
  /**
   * Safe to send twice; default true for GET, false for POST. A request that fails on a reused
   * keep-alive connection before any byte of an answer arrived (the peer had closed it) is sent
   * once more, signed again, on a new connection. Deliveries set it: an inbox POST is idempotent
   * by activity id.
   */
  idempotent?: boolean;
  /**
   * Ends the request where it is (a FetchError "timeout"): a job's own time limit, so a peer
   * that answers slowly cannot hold the job past it.
   */
  signal?: AbortSignal;
}

export interface SafeResponse {
  status: number;
  /** The final URL after redirects. */
  url: string;
  headers: Headers;
  body: Buffer;
}

const CONNECT_TIMEOUT_MS = 5_000;
const IDLE_TIMEOUT_MS = 10_000;
const REDIRECTS = new Set([301, 302, 303, 307, 308]);

/**
 * An HTTP(S) request that never reaches a private, loopback or otherwise reserved address
 * (unless `app.config.allowPrivateAddresses`): names are resolved here and every candidate
 * address is checked, on every redirect hop. Keep-alive agents are reused per app.
 * Throws FetchError, after one log line saying which URL failed and why; a non-2xx status is
 * returned, not thrown. An error thrown by `req.sign` (e.g. the worker pool) propagates unchanged.
 */
export async function safeFetch(app: App, url: string, req: SafeRequest = {}): Promise<SafeResponse> {
  const method = req.method ?? "GET";
  const maxRedirects = req.maxRedirects ?? 3;
  const deadline = Date.now() + (req.timeoutMs ?? 30_000);
  const base = lowerCaseKeys(req.headers ?? {});
  base["user-agent"] ??= `roost/${ROOST_VERSION} (+${app.baseUrl}/)`;
  base["accept-encoding"] ??= "gzip, deflate, br";
  let current = url;
  try {
    let target = checkUrl(url);
    for (let hop = 0; ; hop++) {
      current = target.href;
      const res = await sendHop(app, target, method, base, req, deadline);
      const location = res.headers.get("location");
      if (method !== "GET" || !REDIRECTS.has(res.status) || !location) return { ...res, url: target.href };
      if (hop >= maxRedirects) throw new FetchError("too-many-redirects", `more than ${maxRedirects} redirects from ${url}`);
      target = checkUrl(resolveLocation(location, target));
    }
  } catch (err) {
    if (err instanceof FetchError) logRemoteFailure(app, method, current, err.message);
    throw err;
  }
}

/**
 * The one log line of a failed remote request (host, URL, reason). Info, not warn: peers that
 * are down or refuse a document are routine in federation. Callers that judge a response as a
 * failure (a 5xx, a document that is not ActivityPub) log through this too.
 */
export function logRemoteFailure(app: App, method: string, url: string, reason: string): void {
  let host = "";
  try {
    host = new URL(url).host;
  } catch {
    // an invalid URL: logged as it came
  }
  app.log.info("remote request failed", { method, host, url: url.slice(0, 1000), reason });
}

/**
 * One hop, signed and sent. When the connection it went out on was a reused one that the peer
 * had closed meanwhile (a server that closes after answering without `Connection: close`, or
 * an idle timeout racing our write), an idempotent request is signed again (a fresh Date) and
 * sent once more on a new connection, within the same deadline.
 */
async function sendHop(app: App, target: URL, method: "GET" | "POST", base: Record<string, string>, req: SafeRequest, deadline: number): Promise<HopResponse> {
  const idempotent = req.idempotent ?? method === "GET";
  for (let attempt = 1; ; attempt++) {
    const headers = req.sign ? { ...base, ...lowerCaseKeys(await req.sign(target, { ...base })) } : { ...base };
    headers.host ??= target.host;
    try {
      return await requestOnce(app, {
        url: target,
        method,
        headers,
        body: req.body,
        maxBytes: req.maxBytes ?? 1024 * 1024,
        deadline,
        truncate: req.truncateBody ?? false,
        saveTo: req.saveTo,
        newConnection: attempt > 1,
        signal: req.signal,
      });
    } catch (err) {
      if (!(err instanceof StaleConnection) || !idempotent || attempt > 1) throw err;
      app.log.debug("peer had closed a kept-alive connection; sending again on a new one", { method, url: target.href, reason: err.message });
    }
  }
}

function resolveLocation(location: string, from: URL): string {
  try {
    return new URL(location, from).href;
  } catch {
    throw new FetchError("invalid-url", `invalid redirect location: ${location}`);
  }
}

function checkUrl(raw: string): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new FetchError("invalid-url", `invalid URL: ${raw}`);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") throw new FetchError("invalid-url", `not an http(s) URL: ${raw}`);
  const host = bareHost(url);
  if (/\.(onion|i2p)$/i.test(host)) throw new FetchError("invalid-url", `no proxy configured for ${host}`);
  return url;
}

/** URL.hostname keeps IPv6 brackets; sockets want them off. Trailing dots are dropped too. */
function bareHost(url: URL): string {
  return url.hostname.replace(/^\[(.*)\]$/, "$1").replace(/\.$/, "");
}

function lowerCaseKeys(h: Record<string, string>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(h)) out[k.toLowerCase()] = v;
  return out;
}

interface Agents {
  http: http.Agent;
  https: https.Agent;
}

const AGENTS_KEY = "federation.httpAgents";

/**
 * How long an idle keep-alive socket is kept: less than servers keep theirs (5 s for Node,
 * Apache, Cowboy and uvicorn; 2 s for gunicorn), so the peer's idle timeout rarely races our
 * next write. Node also drops a socket at once when the peer says `Connection: close`, announces
 * a shorter `Keep-Alive: timeout`, or closes it while it is idle; a close still on its way when
 * the socket is reused is handled by sending again (sendHop).
 */
const FREE_SOCKET_MS = 1_500;

function agents(app: App): Agents {
  let a = app.cache.get(AGENTS_KEY) as Agents | undefined;
  if (!a) {
    const opts = { keepAlive: true, timeout: FREE_SOCKET_MS, maxFreeSockets: 4 };
    a = { http: new http.Agent(opts), https: new https.Agent(opts) };
    app.cache.set(AGENTS_KEY, a);
  }
  return a;
}

/** Closes the keep-alive agents of the app (closeApp). */
export function closeHttpAgents(app: App): void {
  const a = app.cache.get(AGENTS_KEY) as Agents | undefined;
  if (!a) return;
  app.cache.delete(AGENTS_KEY);
  a.http.destroy();
  a.https.destroy();
}

type HopResponse = Omit<SafeResponse, "url">;

interface Hop {
  url: URL;
  method: "GET" | "POST";
  headers: Record<string, string>;
  body: string | Buffer | undefined;
  maxBytes: number;
  deadline: number;
  truncate: boolean;
  saveTo: string | undefined;
  /** Bypass the keep-alive pool: a new connection, closed after this request. */
  newConnection: boolean;
  signal?: AbortSignal;
}

/** A reused connection failed before any byte of an answer arrived: the peer had closed it. */
class StaleConnection extends FetchError {
  constructor(message: string) {
    super("network", message);
  }
}

// What writing to, or reading from, a connection the peer has closed reports; Node's
// "socket hang up" (closed before any response) carries ECONNRESET.
const CLOSED_BY_PEER = new Set(["ECONNRESET", "EPIPE"]);

function requestOnce(app: App, hop: Hop): Promise<HopResponse> {
  const { url, headers } = hop;
  const remaining = hop.deadline - Date.now();
  if (remaining <= 0) return Promise.reject(new FetchError("timeout", `request to ${url.host} timed out`));
  if (hop.signal?.aborted) return Promise.reject(new FetchError("timeout", `request to ${url.host} stopped: out of time`));
  // Node skips `lookup` for IP literals, so they are judged here, under the same policy.
  const allowPrivate = app.config.allowPrivateAddresses;
  const host = bareHost(url);
  if (!allowPrivate && isIP(host) !== 0 && isPrivateAddress(host)) {
    return Promise.reject(new FetchError("private-address", `refusing to connect to private address ${host}`));
  }
  const payload = hop.body === undefined ? undefined : Buffer.from(hop.body);
  if (payload) headers["content-length"] = String(payload.length);
  const secure = url.protocol === "https:";

  return new Promise<HopResponse>((resolve, reject) => {
    let settled = false;
    let connectTimer: NodeJS.Timeout | undefined;
    let res: IncomingMessage | undefined;
    let socket: Socket | undefined;
    // Any byte from the peer, even a partial status line, means it may have acted on the
    // request: such a failure is never a stale connection, whatever the error.
    let answered = false;
    const onData = () => {
      answered = true;
    };
    const done = () => {
      settled = true;
      clearTimeout(total);
      clearTimeout(connectTimer);
      socket?.removeListener("data", onData);
      hop.signal?.removeEventListener("abort", onAbort);
    };
    const fail = (err: FetchError) => {
      if (settled) return;
      done();
      res?.destroy();
      r.destroy();
      reject(err);
    };
    const total = setTimeout(() => fail(new FetchError("timeout", `request to ${url.host} timed out`)), remaining);
    const onAbort = () => fail(new FetchError("timeout", `request to ${url.host} stopped: out of time`));
    hop.signal?.addEventListener("abort", onAbort, { once: true });

    const pool = secure ? agents(app).https : agents(app).http;
    const r = (secure ? https : http).request({
      protocol: url.protocol,
      hostname: host,
      port: url.port || undefined,
      path: url.pathname + url.search,
      method: hop.method,
      headers,
      agent: hop.newConnection ? false : pool,
      lookup: guardedLookup(allowPrivate),
    });
    r.setTimeout(IDLE_TIMEOUT_MS, () => fail(new FetchError("timeout", `${url.host} sent nothing for ${IDLE_TIMEOUT_MS / 1000} s`)));
    r.on("socket", (s: Socket) => {
      socket = s;
      s.on("data", onData);
      if (!s.connecting) return; // a kept-alive socket, connected (and checked) earlier
      // The agent's idle-socket timeout is no connect timeout (it would cut DNS and connect short).
      s.setTimeout(0);
      connectTimer = setTimeout(() => fail(new FetchError("timeout", `connecting to ${url.host} timed out`)), CONNECT_TIMEOUT_MS);
      s.once("connect", () => clearTimeout(connectTimer));
    });
    r.on("error", (err) => {
      const code = (err as NodeJS.ErrnoException).code ?? "";
      const stale = r.reusedSocket && !answered && res === undefined && CLOSED_BY_PEER.has(code);
      fail(stale ? new StaleConnection(`${url.host} had closed the kept-alive connection (${err.message})`) : toFetchError(err, url));
    });
    r.on("response", (response) => {
      res = response;
      clearTimeout(connectTimer);
      readBody(response, hop.maxBytes, url, hop.truncate, hop.saveTo).then(
        (buf) => {
          if (settled) return;
          done();
          resolve({ status: response.statusCode ?? 0, headers: toHeaders(response), body: buf });
        },
        (err: FetchError) => fail(err),
      );
    });
    r.end(payload);
  });
}

/**
 * The body, decoded, counting raw and decoded bytes against the limit (decompression bombs).
 * Over the limit: a FetchError, or with `truncate` the bytes read so far (the rest unread).
 * With `saveTo`, the decoded bytes go to that file (paused while the disk catches up).
 */
function readBody(res: IncomingMessage, maxBytes: number, url: URL, truncate: boolean, saveTo?: string): Promise<Buffer> {
  return new Promise((resolveBody, rejectBody) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const file = saveTo === undefined ? undefined : createWriteStream(saveTo);
    const resolve = (buf: Buffer) => (file ? file.end(() => resolveBody(Buffer.alloc(0))) : resolveBody(buf));
    const reject = (err: FetchError) => {
      file?.destroy();
      rejectBody(err);
    };
    file?.on("error", (err) => {
      res.destroy();
      reject(new FetchError("network", `writing the body from ${url.host}: ${err.message}`));
    });
    const tooLarge = () => {
      if (!truncate) return reject(new FetchError("too-large", `response from ${url.host} is larger than ${maxBytes} bytes`));
      resolve(Buffer.concat(chunks, size));
      res.destroy();
    };
    const declared = Number(res.headers["content-length"]);
    if (Number.isFinite(declared) && declared > maxBytes) return tooLarge();

    const encoding = (res.headers["content-encoding"] ?? "identity").trim().toLowerCase();
    let decoded: Readable = res;
    if (encoding === "gzip" || encoding === "x-gzip") decoded = res.pipe(createGunzip());
    else if (encoding === "deflate") decoded = res.pipe(createInflate());
    else if (encoding === "br") decoded = res.pipe(createBrotliDecompress());
    else if (encoding !== "identity") return reject(new FetchError("network", `unsupported content-encoding ${encoding} from ${url.host}`));

    let raw = 0;
    res.on("data", (c: Buffer) => {
      raw += c.length;
      if (raw > maxBytes) tooLarge();
    });
    res.on("close", () => {
      if (!res.complete) reject(new FetchError("network", `${url.host} closed the connection mid-response`));
    });
    res.on("error", (err) => reject(new FetchError("network", `reading from ${url.host}: ${err.message}`)));
    if (decoded !== res) decoded.on("error", (err) => reject(new FetchError("network", `bad ${encoding} body from ${url.host}: ${err.message}`)));
    decoded.on("data", (c: Buffer) => {
      if (size + c.length > maxBytes) return tooLarge();
      size += c.length;
      if (!file) chunks.push(c);
      else if (!file.write(c)) {
        decoded.pause();
        file.once("drain", () => decoded.resume());
      }
    });
    decoded.on("end", () => resolve(Buffer.concat(chunks, size)));
  });
}

function toHeaders(res: IncomingMessage): Headers {
  const h = new Headers();
  const raw = res.rawHeaders;
  for (let i = 0; i + 1 < raw.length; i += 2) {
    try {
      h.append(raw[i], raw[i + 1]);
    } catch {
      // A header value fetch's Headers refuses: dropped rather than failing the request.
    }
  }
  return h;
}

function toFetchError(err: Error, url: URL): FetchError {
  if (err instanceof FetchError) return err;
  if (err instanceof AddressRefused) return new FetchError(err.kind, err.message);
  const code = (err as NodeJS.ErrnoException).code;
  if (code === "ENOTFOUND" || code === "EAI_AGAIN") return new FetchError("dns", `DNS lookup of ${url.hostname} failed: ${code}`);
  if (code === "ETIMEDOUT") return new FetchError("timeout", `connecting to ${url.host} timed out`);
  // With several candidate addresses Node reports an AggregateError; a refusal wins over the rest.
  if (err instanceof AggregateError) {
    const refused = err.errors.find((e): e is AddressRefused => e instanceof AddressRefused);
    if (refused) return new FetchError(refused.kind, refused.message);
  }
  return new FetchError("network", `request to ${url.host} failed: ${code ?? err.message}`);
}
