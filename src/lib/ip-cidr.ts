import ipaddr from "ipaddr.js";
import { BlockList } from "node:net";
import { ipKeyRange } from "./ip-keys.ts";

// Address ranges of IP blocks: parsed with ipaddr.js (the same strict forms as lib/ip-keys.ts),
// kept as CIDR text with the host bits cleared ("192.0.2.7/24" is 192.0.2.0/24, a bare address
// /32 or /128, as Mastodon's inet column shows them), matched with node's BlockList.

export interface Cidr {
  /** `192.0.2.0/24`, `2001:db8::/32`. */
  cidr: string;
  family: "ipv4" | "ipv6";
  network: string;
  prefix: number;
  /** lib/ip-keys.ts keys of the first and last address. */
  first: string;
  last: string;
}

/** The range an address or CIDR covers, or null when `value` is neither. */
export function parseCidr(value: string): Cidr | null {
  const v = value.trim();
  if (v.length > 64 || v.includes("%")) return null;
  const keys = ipKeyRange(v);
  if (!keys) return null;
  const [addr, prefix] = v.includes("/") ? ipaddr.parseCIDR(v) : [ipaddr.parse(v), v.includes(":") ? 128 : 32];
  const family = addr.kind();
  const network = family === "ipv4" ? ipaddr.IPv4.networkAddressFromCIDR(`${addr}/${prefix}`) : ipaddr.IPv6.networkAddressFromCIDR(`${addr}/${prefix}`);
  const text = network.toString();
  return { cidr: `${text}/${prefix}`, family, network: text, prefix, first: keys.first, last: keys.last };
}

/**
 * The address a request came from as BlockList wants it: IPv4-mapped IPv6 (a dual-stack
 * socket's "::ffff:192.0.2.1") as plain IPv4, or null when it is no address.
 */
export function plainAddress(ip: string | null): { address: string; family: "ipv4" | "ipv6" } | null {
  if (!ip || !ipaddr.isValid(ip)) return null;
  const addr = ipaddr.process(ip);
  return { address: addr.toString(), family: addr.kind() };
}

export function blockListOf(ranges: Cidr[]): BlockList {
  const list = new BlockList();
  for (const r of ranges) list.addSubnet(r.network, r.prefix, r.family);
  return list;
}
