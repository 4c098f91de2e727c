// Signing of deliveries in the piscina pool (workers/signature-tasks.ts): bursts of RSA
// signatures (0.3 ms each) stay off the event loop.
import type { App } from "../../app.ts";
import type { OutgoingRequest, SignatureScheme, SignKey } from "./http-signatures.ts";

/** Same result as signRequest(), computed in a worker thread. */
export async function signInPool(_app: App, _req: OutgoingRequest, _key: SignKey, _scheme: SignatureScheme): Promise<Record<string, string>> {
  throw new Error("signInPool: not implemented");
}
