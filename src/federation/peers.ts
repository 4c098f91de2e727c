// What we know about each peer server (federation_peers): delivery failures, availability and
// the signature scheme that works with it. Rules of AP §9.3: consecutive failures are counted
// with the distinct UTC days they fell on; a peer that failed on 7 different days is skipped
// until a delivery to it succeeds or it sends us an activity.
import type { App } from "../app.ts";
import {
  findPeer,
  recordPeerFailure,
  recordPeerInboundRow,
  recordPeerSuccess,
  unavailablePeerDomains,
  type PeerState,
} from "../storage/federation-peers.ts";
import type { SignatureScheme } from "./net/http-signatures.ts";

export const UNAVAILABLE_AFTER_DAYS = 7;
/** A healthy peer's last_success_at / last_inbound_at are refreshed at most this often. */
const REFRESH_MS = 3_600_000;

/** Peer key of an inbox or actor URL: `host[:port]`, lower-case (as account domains). */
export function peerDomainOf(url: string): string {
  return new URL(url).host.toLowerCase();
}

export function findPeerState(app: App, domain: string): PeerState | undefined {
  return findPeer(app.db, domain.toLowerCase());
}

/**
 * A verified activity arrived from `domain`: the peer is alive, so its failure state is cleared
 * (AP §7: "On success Mastodon clears the delivery-failure state of the signer's inbox host").
 * Called for every inbound activity, so a healthy peer costs a primary-key read and a write at
 * most once an hour.
 */
export function recordPeerInbound(app: App, domain: string): void {
  const d = domain.toLowerCase();
  const now = app.now();
  const peer = findPeer(app.db, d);
  if (peer && peer.failureCount === 0 && peer.unavailableSince === null && peer.lastInboundAt !== null && now - peer.lastInboundAt < REFRESH_MS) {
    return;
  }
  recordPeerInboundRow(app.db, d, now);
}

/** True when deliveries to `domain` are skipped (it failed on 7 different days, AP §9.3). */
export function isPeerUnavailable(app: App, domain: string): boolean {
  return findPeer(app.db, domain.toLowerCase())?.unavailableSince != null;
}

/** The set of unavailable domains, for filtering an activity's many inboxes at once. */
export function unavailablePeers(app: App): Set<string> {
  return unavailablePeerDomains(app.db);
}

/** A delivery failed (network, 5xx, 401/408/429): returns the new state. */
export function recordDeliveryFailure(app: App, domain: string): PeerState {
  const peer = recordPeerFailure(app.db, domain.toLowerCase(), app.now(), UNAVAILABLE_AFTER_DAYS);
  if (peer.unavailableSince === app.now() && peer.failureDays >= UNAVAILABLE_AFTER_DAYS) {
    app.log.warn("federation peer marked unavailable", { domain: peer.domain, failureDays: peer.failureDays });
  }
  return peer;
}

/**
 * The peer answered a delivery (2xx, or a refusal that retrying cannot change): it is alive.
 * `scheme` is the signature scheme that was accepted, remembered when it differs from what we
 * knew (the RFC 9421 double-knock). Nothing is written while the peer is healthy and known,
 * except an hourly last_success_at refresh: deliveries stay read-only on the database.
 */
export function recordDeliverySuccess(app: App, domain: string, known: PeerState | undefined, scheme: SignatureScheme): void {
  const now = app.now();
  const remembered = known?.signatureScheme ?? "cavage";
  const healthy = !known || (known.failureCount === 0 && known.unavailableSince === null);
  const fresh = known?.lastSuccessAt != null && now - known.lastSuccessAt < REFRESH_MS;
  if (healthy && remembered === scheme && (fresh || !known)) return;
  recordPeerSuccess(app.db, domain.toLowerCase(), now, scheme);
}
