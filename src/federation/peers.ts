// What we know about each peer server (federation_peers): delivery failures, availability and
// the signature scheme that works with it.
import type { App } from "../app.ts";

/**
 * A verified activity arrived from `domain`: the peer is alive, so its failure state is cleared
 * (AP §7: "On success Mastodon clears the delivery-failure state of the signer's inbox host").
 */
export function recordPeerInbound(_app: App, _domain: string): void {}

/** True when deliveries to `domain` are skipped (it failed on 7 different days, AP §9.3). */
export function isPeerUnavailable(_app: App, _domain: string): boolean {
  return false;
}
