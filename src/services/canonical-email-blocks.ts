import type { App } from "../app.ts";
import { canonicalEmailHash } from "../lib/canonical-email.ts";
import { findCanonicalEmailBlockByHash } from "../storage/canonical-email-blocks.ts";

// The sign-up check of canonical e-mail blocks (Mastodon's BlacklistedEmailValidator:
// CanonicalEmailBlock.block?(email)): "J.Doe+x@host" meets a block on "jdoe@host".

export function canonicalEmailBlocked(app: App, email: string): boolean {
  return findCanonicalEmailBlockByHash(app.db, canonicalEmailHash(email)) !== undefined;
}
