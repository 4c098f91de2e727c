// The browser's side of an external sign-in between leaving for the provider and coming back:
// a sealed, short-lived cookie value naming the provider, a random state (CSRF for the callback:
// only the browser that started the flow can finish it) and where to continue afterwards.
import type { App } from "../../app.ts";
import { randomToken, safeEqual } from "../../lib/crypto.ts";
import { seal, unseal } from "../../lib/sealed-box.ts";

const PURPOSE = "external sign-in flow";
export const FLOW_TTL_MS = 10 * 60_000;

export interface FlowState {
  provider: string;
  state: string;
  returnTo: string | null;
  expiresAt: number;
  /** Provider-specific secrets (OIDC nonce and PKCE verifier, SAML request id). */
  extra?: Record<string, string>;
}

export function newFlow(app: App, provider: string, returnTo: string | null, extra?: Record<string, string>, state = randomToken(24)): { flow: FlowState; sealed: string } {
  const flow: FlowState = { provider, state, returnTo, expiresAt: app.now() + FLOW_TTL_MS, extra };
  return { flow, sealed: seal(app.config.secret, PURPOSE, JSON.stringify(flow)) };
}

/** The flow the browser started for `provider`, if its cookie is genuine, unexpired and its state matches. */
export function openFlow(app: App, sealed: string | undefined, provider: string, state: string | undefined): FlowState | undefined {
  if (!sealed || sealed.length > 8192 || !state) return undefined;
  const text = unseal(app.config.secret, PURPOSE, sealed);
  if (!text) return undefined;
  let flow: FlowState;
  try {
    flow = JSON.parse(text) as FlowState;
  } catch {
    return undefined;
  }
  if (flow.provider !== provider || flow.expiresAt <= app.now() || !safeEqual(flow.state, state)) return undefined;
  return flow;
}
