import { Resolver } from "node:dns/promises";
import type { App } from "../app.ts";

// Where an address's mail is delivered (Mastodon's EmailMxValidator and
// User#sign_up_email_requires_approval?): the MX hosts of its domain, so that a block on a
// mail provider also catches the vanity domains it hosts. Best effort: bounded by
// emailDnsTimeoutMs, and any DNS failure means "no MX hosts", never a refused sign-up.

/** Names that never resolve (RFC 2606, RFC 6761): not worth a query. */
const RESERVED = /(^|\.)(test|example|invalid|localhost|local)$|^example\.(com|net|org)$/;
const MAX_HOSTS = 10;

function resolverOf(app: App): Resolver | null {
  const servers = app.config.emailDnsServers.trim();
  if (servers === "off") return null;
  const r = new Resolver({ timeout: app.config.emailDnsTimeoutMs, tries: 1 });
  if (servers !== "") r.setServers(servers.split(",").map((s) => s.trim()).filter(Boolean));
  return r;
}

/** The MX host names of `domain` (lower case, no trailing dot; a null MX "." is none). */
export async function mxHostsOf(app: App, domain: string): Promise<string[]> {
  const name = domain.trim().toLowerCase().replace(/\.$/, "");
  if (name === "" || name.length > 253 || RESERVED.test(name)) return [];
  let resolver: Resolver | null;
  try {
    resolver = resolverOf(app);
  } catch (e) {
    app.log.warn("emailDnsServers is not a list of DNS servers", { err: e as Error });
    return [];
  }
  if (!resolver) return [];
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<null>((resolve) => {
    timer = setTimeout(() => resolve(null), app.config.emailDnsTimeoutMs);
  });
  try {
    const records = await Promise.race([resolver.resolveMx(name), timeout]);
    if (!records) {
      resolver.cancel();
      return [];
    }
    const hosts = records.map((r) => r.exchange.toLowerCase().replace(/\.$/, "")).filter((h) => h !== "");
    return [...new Set(hosts)].slice(0, MAX_HOSTS);
  } catch {
    return [];
  } finally {
    clearTimeout(timer);
  }
}
