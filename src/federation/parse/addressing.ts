// Addressing → visibility (AP §4.3, incoming rule).
import type { Visibility } from "../../storage/statuses.ts";

/**
 * Mastodon's rule: Public in `to` → public; Public in `cc` → unlisted; the author's followers
 * collection in `to` → private; otherwise direct (a "limited" post, addressed to people who are
 * not mentioned, is shown as private).
 */
export function visibilityFromAddressing(_to: string[], _cc: string[], _followersUri: string | null, _limited = false): Visibility {
  throw new Error("visibilityFromAddressing: not implemented");
}
