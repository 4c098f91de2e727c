// The profile directory: GET /api/v1/directory (and the seed's /api/v1/directories) and the
// /directory page. Only accounts that opted in (`discoverable`) appear, never suspended,
// silenced or moved ones; a signed-in viewer does not see those it blocks, mutes or is blocked
// by, nor remote accounts on domains it blocks (Mastodon's DirectoriesController).
import type { App } from "../app.ts";
import type { Id } from "../lib/ids.ts";
import type { Account } from "../storage/accounts.ts";
import { listDirectory } from "../storage/directory.ts";

export interface DirectoryInput {
  order: "active" | "new";
  local: boolean;
  limit: number;
  offset: number;
}

export function directoryAccounts(app: App, viewerId: Id | null, input: DirectoryInput): Account[] {
  if (input.limit <= 0) return [];
  return listDirectory(app.db, { ...input, viewerId, now: app.now() });
}
