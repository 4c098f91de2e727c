import type { TestServer, TestUser } from "./server.ts";

// Small helpers for timeline tests: posting through POST /api/v1/statuses and reading the ids
// of a timeline page.

export interface PostBody {
  status: string;
  visibility?: string;
  in_reply_to_id?: string;
  language?: string;
  spoiler_text?: string;
}

export function hasRoute(s: TestServer, method: string, path: string): boolean {
  return s.routes.some((r) => r.method === method && r.path === path);
}

export async function post(s: TestServer, who: TestUser, body: PostBody): Promise<{ id: string; [k: string]: unknown }> {
  return s.api(who, "POST", "/api/v1/statuses", body);
}

/** Ids of a timeline page, newest first. */
export async function ids(s: TestServer, who: TestUser | null, path: string): Promise<string[]> {
  const list = await s.api<{ id: string }[]>(who, "GET", path);
  return list.map((x) => x.id);
}
