import type { H3, H3Event } from "h3";

export type Handler = (event: H3Event) => unknown | Promise<unknown>;
export type Method = "GET" | "POST" | "PUT" | "PATCH" | "DELETE";

/**
 * Thin wrapper over H3 routing that records every route, so the route-walk test can send
 * garbage to each one, and that registers Rails-style PUT/PATCH aliases.
 */
export class Router {
  readonly routes: { method: Method; path: string }[] = [];
  constructor(readonly h3: H3) {}

  on(method: Method, path: string, handler: Handler): this {
    this.routes.push({ method, path });
    this.h3.on(method, path, handler);
    // Mastodon's routes tolerate a trailing slash.
    if (path !== "/" && !path.endsWith("/")) this.h3.on(method, path + "/", handler);
    return this;
  }
  get(path: string, h: Handler) {
    return this.on("GET", path, h);
  }
  post(path: string, h: Handler) {
    return this.on("POST", path, h);
  }
  delete(path: string, h: Handler) {
    return this.on("DELETE", path, h);
  }
  patch(path: string, h: Handler) {
    return this.on("PATCH", path, h);
  }
  /** Rails resource routing: documented PUT endpoints also answer PATCH and vice versa. */
  put(path: string, h: Handler) {
    return this.on("PUT", path, h).on("PATCH", path, h);
  }
}
