import type { BlockList } from "node:net";
import type { App } from "../app.ts";
import { blockListOf, parseCidr, plainAddress } from "../lib/ip-cidr.ts";
import { ipKey } from "../lib/ip-keys.ts";
import { deleteExpiredIpBlocks, ipBlocksCovering, ipBlocksFingerprint, noAccessIpBlocks } from "../storage/ip-blocks.ts";

// What the IP blocks say about a request or a sign-up (Mastodon's IpBlock): no_access refuses
// every request (checked before routing, against an in-memory BlockList), sign_up_block refuses
// a sign-up, sign_up_requires_approval holds it for a moderator. Expired blocks are ignored.

/** How long a server trusts its BlockList before checking whether another process (the CLI) changed the table. */
const RECHECK_MS = 5_000;
const KEY = "ip-blocks:no-access";

interface Cached {
  list: BlockList | null;
  fingerprint: string;
  checkedAt: number;
  /** The earliest expiry among the blocks in the list: past it the list is rebuilt. */
  validUntil: number;
}

function build(app: App, now: number): Cached {
  const blocks = noAccessIpBlocks(app.db, now);
  const ranges = blocks.map((b) => parseCidr(b.ip)).filter((c) => c !== null);
  const validUntil = Math.min(Infinity, ...blocks.map((b) => b.expiresAt ?? Infinity));
  const cached = { list: ranges.length ? blockListOf(ranges) : null, fingerprint: ipBlocksFingerprint(app.db), checkedAt: now, validUntil };
  app.cache.set(KEY, cached);
  return cached;
}

/** Drops the BlockList: the next request rebuilds it (called after every change). */
export function forgetIpBlocks(app: App): void {
  app.cache.delete(KEY);
}

/** True when a no_access block covers the address. Costs a map lookup and a BlockList check. */
export function ipRefused(app: App, ip: string | null): boolean {
  const now = app.now();
  let c = app.cache.get(KEY) as Cached | undefined;
  if (!c || now >= c.validUntil) c = build(app, now);
  else if (now - c.checkedAt >= RECHECK_MS) {
    c.checkedAt = now;
    if (ipBlocksFingerprint(app.db) !== c.fingerprint) c = build(app, now);
  }
  if (!c.list) return false;
  const addr = plainAddress(ip);
  return addr !== null && c.list.check(addr.address, addr.family);
}

export type IpSignUpVerdict = "blocked" | "approval" | null;

/** A sign-up from `ip`: refused (sign_up_block or no_access), held for approval, or neither. */
export function ipSignUpVerdict(app: App, ip: string | null): IpSignUpVerdict {
  const addr = plainAddress(ip);
  const key = addr && ipKey(addr.address);
  if (!key) return null;
  const [severest] = ipBlocksCovering(app.db, key, app.now());
  if (!severest) return null;
  return severest.severity === "sign_up_requires_approval" ? "approval" : "blocked";
}

/** Periodic: expired blocks go (Mastodon's Scheduler::IpCleanupScheduler); they already no longer apply. */
export function purgeExpiredIpBlocks(app: App): void {
  if (deleteExpiredIpBlocks(app.db, app.now()) > 0) forgetIpBlocks(app);
}
