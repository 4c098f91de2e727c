// Signing of deliveries in the piscina pool (workers/signature-tasks.ts): bursts of RSA
// signatures (0.3 ms each) stay off the event loop.
import type { App } from "../../app.ts";
import type { SignRequestPayload } from "../../workers/signature-tasks.ts";
import type { OutgoingRequest, SignatureScheme, SignKey } from "./http-signatures.ts";

/** Same result as signRequest(), computed in a worker thread (with the app's clock). */
export async function signInPool(app: App, req: OutgoingRequest, key: SignKey, scheme: SignatureScheme): Promise<Record<string, string>> {
  // A Buffer may be a view into a shared 8 KiB slab; copy just its bytes rather than clone the slab.
  const body = Buffer.isBuffer(req.body) ? new Uint8Array(req.body) : req.body;
  const payload: SignRequestPayload = { req: { ...req, body }, key, scheme, now: app.now() };
  return app.pool.run<Record<string, string>>("signRequest", payload);
}
