// Which addresses federation may connect to (AP §14), and a DNS lookup that only ever hands
// allowed addresses to the socket: the address checked is the address connected to.
import { lookup as dnsLookup, type LookupAddress, type LookupOptions } from "node:dns";
import { BlockList, isIP, type LookupFunction } from "node:net";

const V4: [string, number][] = [
  ["0.0.0.0", 8], // "this network"
  ["10.0.0.0", 8], // RFC 1918
  ["100.64.0.0", 10], // CGNAT
  ["127.0.0.0", 8], // loopback
  ["169.254.0.0", 16], // link-local
  ["172.16.0.0", 12], // RFC 1918
  ["192.0.0.0", 24], // IETF protocol assignments
  ["192.0.2.0", 24], // TEST-NET-1
  ["192.88.99.0", 24], // 6to4 relay anycast
  ["192.168.0.0", 16], // RFC 1918
  ["198.18.0.0", 15], // benchmarking
  ["198.51.100.0", 24], // TEST-NET-2
  ["203.0.113.0", 24], // TEST-NET-3
  ["224.0.0.0", 4], // multicast
  ["240.0.0.0", 4], // reserved, includes broadcast 255.255.255.255
];

const V6: [string, number][] = [
  ["::", 96], // unspecified, loopback and the deprecated IPv4-compatible block
  ["64:ff9b::", 96], // NAT64
  ["64:ff9b:1::", 48], // local-use NAT64
  ["100::", 64], // discard-only
  ["2001::", 32], // Teredo
  ["2001:10::", 28], // ORCHID
  ["2001:20::", 28], // ORCHIDv2
  ["2001:db8::", 32], // documentation
  ["2002::", 16], // 6to4
  ["3fff::", 20], // documentation (RFC 9637)
  ["fc00::", 7], // unique-local
  ["fe80::", 10], // link-local
  ["ff00::", 8], // multicast
];

const privateRanges = new BlockList();
for (const [net, bits] of V4) privateRanges.addSubnet(net, bits, "ipv4");
for (const [net, bits] of V6) privateRanges.addSubnet(net, bits, "ipv6");

/**
 * True for addresses federation must not reach by default (AP §14 list). IPv4-mapped IPv6
 * (`::ffff:127.0.0.1`, `::ffff:7f00:1`) is checked as IPv4 (BlockList does this). Anything that
 * is not an IP address answers true: callers fail closed.
 */
export function isPrivateAddress(ip: string): boolean {
  const bare = ip.replace(/^\[(.*)\]$/, "$1").replace(/%.*$/, ""); // brackets, IPv6 zone id
  const family = isIP(bare);
  if (family === 0) return true;
  return privateRanges.check(bare, family === 4 ? "ipv4" : "ipv6");
}

/** Error a guarded lookup reports; safe-fetch turns it into a FetchError. */
export class AddressRefused extends Error {
  override name = "AddressRefused";
  constructor(
    readonly kind: "private-address" | "dns",
    message: string,
  ) {
    super(message);
  }
}

const DNS_TIMEOUT_MS = 5_000;

/**
 * `localhost` and `*.localhost` are loopback without asking DNS (RFC 6761 §6.3, as browsers and
 * curl do); like any loopback address they are refused unless private addresses are allowed.
 * Tests and local set-ups use them for sites the linkifier must see as host names.
 */
const LOCALHOST_NAME = /(^|\.)localhost\.?$/i;

function localhostLookup(_host: string, o: { family?: number }, cb: (err: NodeJS.ErrnoException | null, a: LookupAddress[]) => void): void {
  const v4 = { address: "127.0.0.1", family: 4 };
  const v6 = { address: "::1", family: 6 };
  queueMicrotask(() => cb(null, o.family === 6 ? [v6] : o.family === 4 ? [v4] : [v4, v6]));
}

/**
 * A `lookup` for node:net that drops private candidates (unless allowed) and keeps at most two
 * addresses per family (AP §14). Fails when nothing is left.
 */
export function guardedLookup(allowPrivate: boolean): LookupFunction {
  return (hostname, options: LookupOptions, callback) => {
    let settled = false;
    const timer = setTimeout(() => finish(new AddressRefused("dns", `DNS lookup of ${hostname} timed out`)), DNS_TIMEOUT_MS);
    const finish = (err: NodeJS.ErrnoException | null, found: LookupAddress[] = []) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      if (err) return callback(err, options.all ? [] : "", undefined);
      if (options.all) return callback(null, found);
      const first = found[0];
      callback(null, first.address, first.family);
    };
    const family = options.family === "IPv4" ? 4 : options.family === "IPv6" ? 6 : (options.family ?? 0);
    const resolve = LOCALHOST_NAME.test(hostname) ? localhostLookup : dnsLookup;
    resolve(hostname, { all: true, family }, (err, addresses) => {
      if (err) return finish(new AddressRefused("dns", `DNS lookup of ${hostname} failed: ${err.code ?? err.message}`));
      const allowed = allowPrivate ? addresses : addresses.filter((a) => !isPrivateAddress(a.address));
      if (allowed.length === 0) {
        const why = addresses.length > 0 ? "private-address" : "dns";
        return finish(new AddressRefused(why, `${hostname} resolves only to ${why === "dns" ? "nothing" : "private addresses"}`));
      }
      const perFamily = { 4: 0, 6: 0 } as Record<number, number>;
      finish(null, allowed.filter((a) => ++perFamily[a.family] <= 2)); // keeps the resolver's order
    });
  };
}
