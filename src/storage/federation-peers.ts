import { type DB, type Row, stmt, num, numOrNull } from "../db/db.ts";
import type { SignatureScheme } from "../federation/net/http-signatures.ts";

// federation_peers (migration 0010): per-domain delivery failure state and the signature
// scheme that works with the peer.

export const DAY_MS = 86_400_000;

export interface PeerState {
  domain: string;
  failureCount: number;
  failureDays: number;
  lastFailureAt: number | null;
  unavailableSince: number | null;
  signatureScheme: SignatureScheme | null;
  lastSuccessAt: number | null;
  lastInboundAt: number | null;
}

function rowToPeer(r: Row): PeerState {
  return {
    domain: r.domain as string,
    failureCount: num(r.failure_count),
    failureDays: num(r.failure_days),
    lastFailureAt: numOrNull(r.last_failure_at),
    unavailableSince: numOrNull(r.unavailable_since),
    signatureScheme: (r.signature_scheme as SignatureScheme | null) ?? null,
    lastSuccessAt: numOrNull(r.last_success_at),
    lastInboundAt: numOrNull(r.last_inbound_at),
  };
}

export function findPeer(db: DB, domain: string): PeerState | undefined {
  const r = stmt(db, "SELECT * FROM federation_peers WHERE domain = ?").get(domain) as Row | undefined;
  return r && rowToPeer(r);
}

/** Domains currently skipped (few: read whole when choosing the inboxes of an activity). */
export function unavailablePeerDomains(db: DB): Set<string> {
  const rows = stmt(db, "SELECT domain FROM federation_peers WHERE unavailable_since IS NOT NULL").all() as Row[];
  return new Set(rows.map((r) => r.domain as string));
}

/**
 * Counts a failed delivery. A failure on a UTC day other than the last failure's adds a day;
 * on the `unavailableAfterDays`-th day the peer becomes unavailable. SET expressions all see
 * the old row, so the day test reads the previous last_failure_at.
 */
export function recordPeerFailure(db: DB, domain: string, now: number, unavailableAfterDays: number): PeerState {
  const newDay = `(CASE WHEN last_failure_at IS NULL OR last_failure_at / ${DAY_MS} <> @day THEN 1 ELSE 0 END)`;
  const r = stmt(
    db,
    `INSERT INTO federation_peers (domain, failure_count, first_failure_at, last_failure_at, failure_days, unavailable_since, updated_at)
     VALUES (@domain, 1, @now, @now, 1, CASE WHEN @limit <= 1 THEN @now END, @now)
     ON CONFLICT (domain) DO UPDATE SET
       failure_count = failure_count + 1,
       first_failure_at = coalesce(first_failure_at, @now),
       failure_days = failure_days + ${newDay},
       unavailable_since = CASE WHEN unavailable_since IS NULL AND failure_days + ${newDay} >= @limit THEN @now
                                ELSE unavailable_since END,
       last_failure_at = @now,
       updated_at = @now
     RETURNING *`,
  ).get({ domain, now, day: BigInt(Math.floor(now / DAY_MS)), limit: unavailableAfterDays }) as Row;
  return rowToPeer(r);
}

/**
 * The peer answered (a delivery was accepted or refused for good): failure state cleared,
 * `scheme` remembered when given.
 */
export function recordPeerSuccess(db: DB, domain: string, now: number, scheme: SignatureScheme | null): void {
  stmt(
    db,
    `INSERT INTO federation_peers (domain, signature_scheme, last_success_at, updated_at) VALUES (@domain, @scheme, @now, @now)
     ON CONFLICT (domain) DO UPDATE SET
       failure_count = 0, first_failure_at = NULL, last_failure_at = NULL, failure_days = 0, unavailable_since = NULL,
       signature_scheme = coalesce(@scheme, signature_scheme), last_success_at = @now, updated_at = @now`,
  ).run({ domain, scheme, now });
}

/** The peer sent us a verified activity: alive, so its failure state is cleared. */
export function recordPeerInboundRow(db: DB, domain: string, now: number): void {
  stmt(
    db,
    `INSERT INTO federation_peers (domain, last_inbound_at, updated_at) VALUES (@domain, @now, @now)
     ON CONFLICT (domain) DO UPDATE SET
       failure_count = 0, first_failure_at = NULL, last_failure_at = NULL, failure_days = 0, unavailable_since = NULL,
       last_inbound_at = @now, updated_at = @now`,
  ).run({ domain, now });
}

/** Peers whose latest deliveries failed, and those of them skipped as unavailable. */
export function peerFailureCounts(db: DB): { failing: number; unavailable: number; worst: { domain: string; failureDays: number; since: number | null }[] } {
  const r = stmt(
    db,
    "SELECT sum(failure_count > 0) AS failing, sum(unavailable_since IS NOT NULL) AS unavailable FROM federation_peers",
  ).get() as Row;
  const worst = stmt(
    db,
    `SELECT domain, failure_days, first_failure_at FROM federation_peers WHERE failure_count > 0
     ORDER BY failure_days DESC, first_failure_at LIMIT 5`,
  ).all() as Row[];
  return {
    failing: num(r.failing ?? 0),
    unavailable: num(r.unavailable ?? 0),
    worst: worst.map((w) => ({ domain: w.domain as string, failureDays: num(w.failure_days), since: numOrNull(w.first_failure_at) })),
  };
}
