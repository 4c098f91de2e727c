// CAS sign-in at Mastodon's omniauth paths (/auth/auth/cas, /auth/auth/cas/callback).
// The protocol itself is in services/external-auth/cas.ts.
import type { App } from "../../../app.ts";
import type { Router } from "../../router.ts";
import { readAppParams } from "../../params.ts";
import { csrfValid } from "../../cookies.ts";
import { redirectTo } from "../../html/layout.ts";
import { casEnabled, casLoginUrl, validateCasTicket } from "../../../services/external-auth/cas.ts";
import { invalidCsrfPage, safeReturnTo } from "../oauth/sessions.ts";
import { FLOW_LOST, externalFailurePage, finishFlow, resumeFlow, startFlow } from "./external-flow.ts";
import { ApiError } from "../../../errors.ts";

export function registerCasRoutes(app: App, r: Router): void {
  r.post("/auth/auth/cas", async (event) => {
    if (!casEnabled(app)) throw new ApiError(404, "Record not found");
    const p = await readAppParams(app, event);
    if (!csrfValid(app, event, p.str("authenticity_token"))) return invalidCsrfPage(event);
    const { flow, cookie } = startFlow(app, "cas", safeReturnTo(p.str("return_to")));
    return redirectTo(event, casLoginUrl(app, flow.state), [cookie]);
  });

  r.get("/auth/auth/cas/callback", async (event) => {
    if (!casEnabled(app)) throw new ApiError(404, "Record not found");
    const p = await readAppParams(app, event);
    const state = p.str("state");
    const flow = resumeFlow(app, event, "cas", state);
    if (!flow || !state) return externalFailurePage(app, event, 422, FLOW_LOST, null);
    return finishFlow(app, event, flow, await validateCasTicket(app, p.str("ticket") ?? "", state));
  });
}
