import type { App } from "../app.ts";
import { notFound } from "../errors.ts";
import { type Account, findAccountById } from "../storage/accounts.ts";
import { findStatusById, type Status } from "../storage/statuses.ts";

// GET /api/oembed: which statuses may be embedded elsewhere (Mastodon's OEmbedController):
// our own public or unlisted posts, named by their web URL (/@user/id) or their id URI.

const PATHS = [/^\/@([^/@]+)\/(\d{1,19})\/?$/, /^\/users\/([^/]+)\/statuses\/(\d{1,19})\/?$/];

/** The local status a URL of this server names, if it may be embedded; else 404. */
export function requireEmbeddableStatus(app: App, rawUrl: string | undefined): { status: Status; account: Account } {
  let url: URL;
  try {
    url = new URL(rawUrl ?? "");
  } catch {
    throw notFound();
  }
  if (url.host.toLowerCase() !== app.config.domain.toLowerCase()) throw notFound();
  const m = PATHS.map((re) => re.exec(url.pathname)).find((x) => x !== null);
  if (!m) throw notFound();
  const status = findStatusById(app.db, m[2]);
  if (!status || !status.local || status.reblogOfId || (status.visibility !== "public" && status.visibility !== "unlisted")) throw notFound();
  const account = findAccountById(app.db, status.accountId);
  if (!account || account.suspendedAt !== null || account.username.toLowerCase() !== m[1].toLowerCase()) throw notFound();
  return { status, account };
}
