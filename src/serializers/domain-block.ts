import { sha256Hex } from "../lib/crypto.ts";
import type { DomainBlock } from "../storage/domain-blocks.ts";

export interface ApiDomainBlock {
  domain: string;
  digest: string;
  severity: "silence" | "suspend" | "noop";
  comment: string | null;
}

/**
 * Mastodon's DomainBlock#public_domain: with `obfuscate`, the middle half of the name (dots
 * excepted) becomes `*`, so "example.com" reads "exa****.*om"; `digest` still lets anyone who
 * knows a domain check whether it is on the list.
 */
export function obfuscateDomain(domain: string): string {
  const length = domain.length;
  const visible = Math.floor(length / 4);
  return [...domain].map((c, i) => (i > visible && i < length - visible && c !== "." ? "*" : c)).join("");
}

/** The public list's entry; `comment` only when rationales are shown to this caller. */
export function toApiDomainBlock(b: DomainBlock, withComment: boolean): ApiDomainBlock {
  return {
    domain: b.obfuscate ? obfuscateDomain(b.domain) : b.domain,
    digest: sha256Hex(b.domain),
    severity: b.severity,
    comment: withComment ? b.publicComment : null,
  };
}
