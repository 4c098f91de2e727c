import type { Res, TestServer, TestUser } from "../helpers/server.ts";

// Shared by the ActivityPub GET tests: fetch like a peer, post like a user.

export const AS_PUBLIC = "https://www.w3.org/ns/activitystreams#Public";
export const AP_TYPE = "application/activity+json; charset=utf-8";
export const VARY = "Accept, Accept-Language, Cookie";

/** A GET as a peer would send it (unsigned). */
export function apGet(s: TestServer, path: string, accept = "application/activity+json", headers: Record<string, string> = {}): Promise<Res> {
  return s.req(null, "GET", path, undefined, { accept, ...headers });
}

export async function post(s: TestServer, who: TestUser, body: Record<string, unknown>): Promise<{ id: string; uri: string; url: string }> {
  return s.api(who, "POST", "/api/v1/statuses", body);
}

/** The id part of a local status URL (`…/statuses/<id>`). */
export const statusPath = (who: TestUser, id: string) => `/users/${who.username}/statuses/${id}`;
