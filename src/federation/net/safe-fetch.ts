// Outgoing HTTP for federation (AP §14): every request to another server goes through here.
// node:http rather than global fetch: the guarded `lookup` must run for the very connection
// that is opened (no DNS-rebinding gap between a check and the connect).
import http, { type IncomingMessage } from "node:http";
import https from "node:https";
import { isIP } from "node:net";
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
  /** Whole-request deadline in ms; default 30 s (connect 5 s, idle read 10 s). */
  timeoutMs?: number;
  /** Redirects followed (GET only); default 3. POSTs never follow redirects. */
  maxRedirects?: number;
  /**
   * Extra headers for each hop, computed for the URL about to be requested (a redirected GET
   * is signed again for its new URL).
   */
  sign?: (url: URL, headers: Record<string, string>) => Promise<Record<string, string>> | Record<string, string>;
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
 * Throws FetchError; a non-2xx status is returned, not thrown. An error thrown by `req.sign`
 * (e.g. the worker pool) propagates unchanged.
 */
export async function safeFetch(app: App, url: string, req: SafeRequest = {}): Promise<SafeResponse> {
  const method = req.method ?? "GET";
  const maxRedirects = req.maxRedirects ?? 3;
  const deadline = Date.now() + (req.timeoutMs ?? 30_000);
  const base = lowerCaseKeys(req.headers ?? {});
  base["user-agent"] ??= `roost/${ROOST_VERSION} (+${app.baseUrl}/)`;
  base["accept-encoding"] ??= "gzip, deflate, br";
  let target = checkUrl(url);
  for (let hop = 0; ; hop++) {
    const headers = req.sign ? { ...base, ...lowerCaseKeys(await req.sign(target, { ...base })) } : { ...base };
    headers.host ??= target.host;
    const res = await requestOnce(app, target, method, headers, req.body, req.maxBytes ?? 1024 * 1024, deadline, req.truncateBody ?? false);
    const location = res.headers.get("location");
    if (method !== "GET" || !REDIRECTS.has(res.status) || !location) return { ...res, url: target.href };
    if (hop >= maxRedirects) throw new FetchError("too-many-redirects", `more than ${maxRedirects} redirects from ${url}`);
    target = checkUrl(resolveLocation(location, target));
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

function agents(app: App): Agents {
  let a = app.cache.get(AGENTS_KEY) as Agents | undefined;
  if (!a) {
    // Idle keep-alive sockets close after 4 s, before the common 5 s server-side keep-alive
    // timeout, so a request is rarely written to a socket the peer is closing.
    const opts = { keepAlive: true, timeout: 4_000, maxFreeSockets: 4 };
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

function requestOnce(
  app: App,
  url: URL,
  method: "GET" | "POST",
  headers: Record<string, string>,
  body: string | Buffer | undefined,
  maxBytes: number,
  deadline: number,
  truncate: boolean,
): Promise<HopResponse> {
  const remaining = deadline - Date.now();
  if (remaining <= 0) return Promise.reject(new FetchError("timeout", `request to ${url.host} timed out`));
  // Node skips `lookup` for IP literals, so they are judged here, under the same policy.
  const allowPrivate = app.config.allowPrivateAddresses;
  const host = bareHost(url);
  if (!allowPrivate && isIP(host) !== 0 && isPrivateAddress(host)) {
    return Promise.reject(new FetchError("private-address", `refusing to connect to private address ${host}`));
  }
  const payload = body === undefined ? undefined : Buffer.from(body);
  if (payload) headers["content-length"] = String(payload.length);
  const secure = url.protocol === "https:";

  return new Promise<HopResponse>((resolve, reject) => {
    let settled = false;
    let connectTimer: NodeJS.Timeout | undefined;
    let res: IncomingMessage | undefined;
    const fail = (err: FetchError) => {
      if (settled) return;
      settled = true;
      clearTimeout(total);
      clearTimeout(connectTimer);
      res?.destroy();
      r.destroy();
      reject(err);
    };
    const total = setTimeout(() => fail(new FetchError("timeout", `request to ${url.host} timed out`)), remaining);

    const r = (secure ? https : http).request({
      protocol: url.protocol,
      hostname: host,
      port: url.port || undefined,
      path: url.pathname + url.search,
      method,
      headers,
      agent: secure ? agents(app).https : agents(app).http,
      lookup: guardedLookup(allowPrivate),
    });
    r.setTimeout(IDLE_TIMEOUT_MS, () => fail(new FetchError("timeout", `${url.host} sent nothing for ${IDLE_TIMEOUT_MS / 1000} s`)));
    r.on("socket", (socket) => {
      if (!socket.connecting) return; // a kept-alive socket, connected (and checked) earlier
      connectTimer = setTimeout(() => fail(new FetchError("timeout", `connecting to ${url.host} timed out`)), CONNECT_TIMEOUT_MS);
      socket.once("connect", () => clearTimeout(connectTimer));
    });
    r.on("error", (err) => fail(toFetchError(err, url)));
    r.on("response", (response) => {
      res = response;
      clearTimeout(connectTimer);
      readBody(response, maxBytes, url, truncate).then(
        (buf) => {
          if (settled) return;
          settled = true;
          clearTimeout(total);
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
 */
function readBody(res: IncomingMessage, maxBytes: number, url: URL, truncate: boolean): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
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
      chunks.push(c);
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
