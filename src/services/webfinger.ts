import type { App } from "../app.ts";
import { ApiError } from "../errors.ts";
import { type Account, findAccountByHandle } from "../storage/accounts.ts";

// Which local actor a WebFinger `resource` names (RFC 7033 / RFC 7565): `acct:user@domain`, a
// bare `user@domain`, an actor or profile URL of this server, or the instance actor in any of
// its forms (`acct:DOMAIN@DOMAIN`, `DOMAIN`, `https://DOMAIN/actor`, `https://DOMAIN/`).

export type WebfingerTarget = { kind: "account"; account: Account } | { kind: "instance" };

export class WebfingerError extends ApiError {}
const badRequest = () => new WebfingerError(400, "Bad Request");
const notFound = () => new WebfingerError(404, "Not Found");

export function resolveWebfingerResource(app: App, resource: string | undefined): WebfingerTarget {
  const r = (resource ?? "").trim();
  if (r === "") throw badRequest();
  const domain = app.config.domain;

  if (/^https?:\/\//i.test(r)) {
    let url: URL;
    try {
      url = new URL(r);
    } catch {
      throw badRequest();
    }
    if (url.host.toLowerCase() !== domain) throw notFound();
    const path = url.pathname.replace(/\/+$/, "");
    if (path === "" || path === "/actor") return { kind: "instance" };
    const m = /^\/(?:users\/|@)([^/]+)$/.exec(path);
    if (!m) throw notFound();
    let username: string;
    try {
      username = decodeURIComponent(m[1]);
    } catch {
      throw badRequest();
    }
    return localAccount(app, username);
  }

  // "@user@domain" is tolerated; a lone "@domain" is not a handle.
  const handle = r.replace(/^acct:/i, "").replace(/^@(?=[^@]+@)/, "");
  const at = handle.indexOf("@");
  if (at === -1) {
    if (handle.toLowerCase() === domain) return { kind: "instance" };
    throw badRequest();
  }
  const username = handle.slice(0, at);
  const host = handle.slice(at + 1).toLowerCase();
  if (username === "" || host === "" || host.includes("@")) throw badRequest();
  if (host !== domain) throw notFound();
  // Mastodon's instance actor is named after the domain (no user can take a name with a port).
  if (username.toLowerCase() === domain) return { kind: "instance" };
  return localAccount(app, username);
}

function localAccount(app: App, username: string): WebfingerTarget {
  // Suspended accounts are still served (their actor answers with a tombstone-like profile).
  const account = findAccountByHandle(app.db, username, null);
  if (!account) throw notFound();
  return { kind: "account", account };
}
