import type { App } from "../../app.ts";
import { deleteDeadTokensAndGrants } from "../../storage/oauth-cleanup.ts";

/** Periodic: removes revoked or expired access tokens and authorization grants. */
export function cleanupOauth(app: App): void {
  const removed = deleteDeadTokensAndGrants(app.db, app.now());
  if (removed.tokens || removed.grants) app.log.info("removed dead OAuth records", removed);
}
