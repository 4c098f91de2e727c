// PLACEHOLDER: signatures fixed; implemented by the relationships work package.
import type { App } from "../app.ts";
import type { Id } from "../lib/ids.ts";

/** Accepts every pending follow request to the account (called when it becomes unlocked). */
export function authorizeAllFollowRequests(_app: App, _accountId: Id): void {}
