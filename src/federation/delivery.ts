// `federation.deliver`: POSTs one stored activity to one inbox, signed by the acting account
// (the instance actor for reports) in the worker pool. Outcomes follow AP §9.3: 2xx is done;
// 4xx other than 401/408/429, and 501, are final; the rest (and network errors) are retried
// with the runner's backoff, and count towards the peer's failure days.
// Signatures double-knock (AP §10.1): draft-cavage first; on 400/401 once more at once with
// RFC 9421, and the scheme that worked is remembered per peer and tried first next time.
import type { App } from "../app.ts";
import { PermanentJobError } from "../errors.ts";
import type { JobInfo } from "../jobs/jobs.ts";
import { findDeliveryContext, type DeliveryContext } from "../storage/outgoing-activities.ts";
import { ROOST_VERSION } from "../version.ts";
import { isSuspendedDomain } from "./domain-policy.ts";
import { instanceActorSignKey } from "./instance-actor.ts";
import type { SignatureScheme, SignKey } from "./net/http-signatures.ts";
import { FetchError, safeFetch, type SafeResponse } from "./net/safe-fetch.ts";
import { signInPool } from "./net/sign-pool.ts";
import type { DeliverPayload } from "./outbox/send.ts";
import { findPeerState, peerDomainOf, recordDeliveryFailure, recordDeliverySuccess } from "./peers.ts";

const DELIVERY_TIMEOUT_MS = 20_000;
/**
 * Circuit breaker (AP §9.3): after this many consecutive failures, deliveries to the peer are
 * not attempted for BREAKER_MS, so a dead host's backlog does not hold the queue's 16 slots
 * with connection timeouts. They fail fast and retry with the backoff.
 */
const BREAKER_FAILURES = 10;
const BREAKER_MS = 60_000;
/** Inboxes answer with an empty body or a short error; more is not read. */
const RESPONSE_MAX_BYTES = 64 * 1024;

type Outcome = "delivered" | "final" | "retry";

/** AP §9.3 by status code. */
export function deliveryOutcome(status: number): Outcome {
  if (status >= 200 && status < 300) return "delivered";
  if (status === 401 || status === 408 || status === 429) return "retry";
  if (status === 501) return "final";
  if (status >= 400 && status < 500) return "final";
  return "retry"; // 5xx, and 1xx/3xx (POSTs follow no redirects)
}

function signKeyOf(app: App, ctx: DeliveryContext): SignKey {
  if (ctx.actorAccountId === null) return instanceActorSignKey(app);
  if (!ctx.privateKeyPem || !ctx.actorUri) throw new PermanentJobError("the acting account has no private key");
  return { keyId: ctx.publicKeyId ?? `${ctx.actorUri}#main-key`, privateKeyPem: ctx.privateKeyPem };
}

async function post(app: App, inbox: string, body: string, key: SignKey, scheme: SignatureScheme): Promise<SafeResponse> {
  const headers = {
    "content-type": "application/activity+json",
    "user-agent": `roost/${ROOST_VERSION} (+${app.baseUrl}/)`,
  };
  return safeFetch(app, inbox, {
    method: "POST",
    headers,
    body,
    timeoutMs: DELIVERY_TIMEOUT_MS,
    // Only the status matters: a long answer (an HTML error page) is cut, not a failure.
    maxBytes: RESPONSE_MAX_BYTES,
    truncateBody: true,
    maxRedirects: 0,
    // Sent again at once if the connection turns out closed by the peer: the inbox dedupes by id.
    idempotent: true,
    sign: (url, h) => signInPool(app, { method: "POST", url: url.href, headers: h, body }, key, scheme),
  });
}

export async function handleDeliver(app: App, payload: DeliverPayload, job: JobInfo): Promise<void> {
  const ctx = findDeliveryContext(app.db, payload.a);
  if (!ctx) return; // purged, or the actor's account is gone: nothing left to send
  let domain: string;
  try {
    domain = peerDomainOf(payload.i);
  } catch {
    throw new PermanentJobError(`invalid inbox url ${payload.i}`);
  }
  // Checked at every attempt: retries span days, and the peer or the admin's policy may change.
  const peer = findPeerState(app, domain);
  if (!payload.f && peer?.unavailableSince != null) return;
  if (isSuspendedDomain(app, domain)) return;
  if (peer && peer.failureCount >= BREAKER_FAILURES && peer.lastFailureAt !== null && app.now() - peer.lastFailureAt < BREAKER_MS) {
    throw new Error(`${domain} failed ${peer.failureCount} times in a row: not tried for a minute`);
  }
  const key = signKeyOf(app, ctx);

  const first: SignatureScheme = peer?.signatureScheme === "rfc9421" ? "rfc9421" : "cavage";
  let scheme = first;
  let res: SafeResponse;
  try {
    res = await post(app, payload.i, ctx.body, key, scheme);
    if (res.status === 400 || res.status === 401) {
      scheme = first === "cavage" ? "rfc9421" : "cavage";
      res = await post(app, payload.i, ctx.body, key, scheme);
    }
  } catch (err) {
    // Our own refusal to connect (bad URL, private address) will not change by retrying.
    if (err instanceof FetchError && (err.kind === "invalid-url" || err.kind === "private-address")) {
      throw new PermanentJobError(`${payload.i}: ${err.message}`);
    }
    recordDeliveryFailure(app, domain);
    throw err;
  }

  const outcome = deliveryOutcome(res.status);
  if (outcome === "retry") {
    recordDeliveryFailure(app, domain);
    throw new Error(`${payload.i} answered ${res.status} (attempt ${job.attempts})`);
  }
  // A final refusal still shows the peer is up; only an accepted scheme is remembered.
  recordDeliverySuccess(app, domain, peer, outcome === "delivered" ? scheme : (peer?.signatureScheme ?? "cavage"));
  if (outcome === "final") throw new PermanentJobError(`${payload.i} answered ${res.status}`);
}
