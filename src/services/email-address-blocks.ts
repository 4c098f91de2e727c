import type { App } from "../app.ts";
import { anyEmailDomainBlock } from "../storage/email-domain-blocks.ts";
import { canonicalEmailBlocked } from "./canonical-email-blocks.ts";
import { emailDomainOf, emailDomainVerdict } from "./email-domain-blocks.ts";
import { mxHostsOf } from "./email-mx.ts";

// Every block the admin can put on an address, checked wherever an address is taken on: a
// sign-up, a settings e-mail change, a confirmation resent to a corrected address (Mastodon's
// User validations UserEmailValidator and EmailMxValidator run whenever the address changes).

/**
 * "blocked": its domain, a parent domain or one of the domain's MX hosts is blocked;
 * "canonical": the address itself is blocked, however it is spelled (dots, +tags, case);
 * "approval": an allow_with_approval block holds a sign-up for a moderator.
 */
export type EmailBlockVerdict = "blocked" | "canonical" | "approval" | null;

/** The MX hosts are looked up only when there are domain blocks at all (DNS is slow). */
export async function emailBlockVerdict(app: App, email: string, ip: string | null): Promise<EmailBlockVerdict> {
  const domain = emailDomainOf(email);
  const mxHosts = domain && anyEmailDomainBlock(app.db) ? await mxHostsOf(app, domain) : [];
  const verdict = emailDomainVerdict(app, email, ip, mxHosts);
  if (verdict === "blocked") return "blocked";
  if (canonicalEmailBlocked(app, email)) return "canonical";
  return verdict;
}
