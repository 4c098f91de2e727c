// Remote statuses by uri or URL (search with resolve=true, thread parents, boosts).
import type { App } from "../../app.ts";
import type { Status } from "../../storage/statuses.ts";

/**
 * A status by its uri (or web URL): stored, else fetched from its origin and stored through
 * remote-statuses.ts. Undefined when it does not exist or is not a usable status.
 */
export async function resolveStatusByUri(_app: App, _uri: string): Promise<Status | undefined> {
  throw new Error("resolveStatusByUri: not implemented");
}
