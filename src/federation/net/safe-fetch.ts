// Outgoing HTTP for federation (AP §14): every request to another server goes through here.
import type { App } from "../../app.ts";

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

/**
 * An HTTP(S) request that never reaches a private, loopback or otherwise reserved address
 * (unless `app.config.allowPrivateAddresses`): names are resolved here and every candidate
 * address is checked, on every redirect hop. Keep-alive agents are reused per app.
 * Throws FetchError; a non-2xx status is returned, not thrown.
 */
export async function safeFetch(_app: App, _url: string, _req: SafeRequest = {}): Promise<SafeResponse> {
  throw new FetchError("network", "safeFetch: not implemented");
}

/** True for addresses federation must not reach by default (AP §14 list; IPv4-mapped IPv6 as IPv4). */
export function isPrivateAddress(_ip: string): boolean {
  throw new Error("isPrivateAddress: not implemented");
}

/** Closes the keep-alive agents of the app (closeApp). */
export function closeHttpAgents(_app: App): void {}
