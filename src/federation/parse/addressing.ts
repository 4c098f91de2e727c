// Addressing → visibility (AP §4.3, incoming rule).
import type { Visibility } from "../../storage/statuses.ts";
import { isPublicAddress } from "./common.ts";

/**
 * Mastodon's rule: Public in `to` → public; Public in `cc` → unlisted; the author's followers
 * collection in `to` → private; otherwise direct (a "limited" post, addressed to people who are
 * not mentioned, is shown as private).
 *
 * remote-statuses.ts asks without `limited` for what it stores (a limited post keeps the
 * access rules of a direct one: only the addressed see it) and marks the row as limited.
 */
export function visibilityFromAddressing(to: string[], cc: string[], followersUri: string | null, limited = false): Visibility {
  if (to.some(isPublicAddress)) return "public";
  if (cc.some(isPublicAddress)) return "unlisted";
  if (followersUri !== null && to.includes(followersUri)) return "private";
  return limited ? "private" : "direct";
}
