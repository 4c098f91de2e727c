import ipaddr from "ipaddr.js";

// Addresses as fixed-width keys, so that "signed in from inside 192.0.2.0/24" is a range
// scan over an index (storage/user-ips.ts): every address becomes its 16 IPv6 bytes in hex,
// IPv4 mapped into ::ffff:0:0/96 as IPv4-mapped IPv6 addresses are.

function bytesOf(addr: ipaddr.IPv4 | ipaddr.IPv6): number[] {
  return addr.kind() === "ipv4" ? (addr as ipaddr.IPv4).toIPv4MappedAddress().toByteArray() : addr.toByteArray();
}

/**
 * ipaddr.js also takes IPv4's old short and numeric forms ("10.1", "167772161"); addresses
 * here are written in full, as Ruby's IPAddr (Mastodon) requires.
 */
function valid(addr: string): boolean {
  return addr.includes(":") ? ipaddr.IPv6.isValid(addr) : ipaddr.IPv4.isValidFourPartDecimal(addr);
}

const hex = (bytes: number[]) => bytes.map((b) => b.toString(16).padStart(2, "0")).join("");

/** The key of an address, or null when `ip` is not one. */
export function ipKey(ip: string): string | null {
  if (!valid(ip)) return null;
  return hex(bytesOf(ipaddr.parse(ip)));
}

/**
 * The first and last key inside an address or CIDR (`192.0.2.0/24`, `2001:db8::/32`, a bare
 * address), or null when `value` is neither.
 */
export function ipKeyRange(value: string): { first: string; last: string } | null {
  const v = value.trim();
  let addr: ipaddr.IPv4 | ipaddr.IPv6;
  let bits: number;
  try {
    if (v.includes("/")) {
      if (!valid(v.slice(0, v.indexOf("/")))) return null;
      [addr, bits] = ipaddr.parseCIDR(v);
    } else {
      if (!valid(v)) return null;
      addr = ipaddr.parse(v);
      bits = addr.kind() === "ipv4" ? 32 : 128;
    }
  } catch {
    return null;
  }
  if (addr.kind() === "ipv4") bits += 96;
  const bytes = bytesOf(addr);
  const first = [...bytes];
  const last = [...bytes];
  for (let i = 0; i < 16; i++) {
    const keep = Math.max(0, Math.min(8, bits - i * 8));
    const mask = keep === 0 ? 0 : (0xff << (8 - keep)) & 0xff;
    first[i] = bytes[i] & mask;
    last[i] = (bytes[i] & mask) | (~mask & 0xff);
  }
  return { first: hex(first), last: hex(last) };
}
