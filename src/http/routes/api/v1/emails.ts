// https://docs.joinmastodon.org/methods/emails/ — resending the confirmation e-mail from the
// app that signed the user up, and asking whether the address is confirmed yet.
import type { App } from "../../../../app.ts";
import type { Router } from "../../../router.ts";
import { ApiError } from "../../../../errors.ts";
import { createThrottle } from "../../../../lib/rate-limit.ts";
import { resendConfirmation } from "../../../../services/email-confirmation.ts";
import { bearerToken, clientIp, requireToken } from "../../../auth.ts";
import { readAppParams } from "../../../params.ts";
import { jsonText } from "../../../headers.ts";

export function registerEmailsRoutes(app: App, r: Router): void {
  // Mastodon's rack-attack throttle_email_confirmations/ip: 25 per 5 minutes.
  const perIp = createThrottle(25, 5 * 60_000);

  r.post("/api/v1/emails/confirmations", async (event) => {
    const p = await readAppParams(app, event);
    const { token, user, account } = requireToken(app, event, "write", "write:accounts");
    const wait = perIp.hit(clientIp(event) ?? "unknown", app.now());
    if (wait > 0) throw new ApiError(429, "Too many requests", undefined, undefined, { "retry-after": String(Math.ceil(wait / 1000)) });
    await resendConfirmation(app, { applicationId: token.applicationId, user, account }, p.has("email") ? (p.str("email") ?? "") : undefined);
    return {};
  });

  // Mastodon answers `current_user.confirmed?`, and fails when there is no user: roost answers
  // 401 instead (the seed: never an unhandled error).
  r.get("/api/v1/emails/check_confirmation", (event) => {
    if (bearerToken(event) === undefined) throw new ApiError(401, "This method requires an authenticated user");
    const { user } = requireToken(app, event, "read", "read:accounts");
    if (!user) throw new ApiError(401, "This method requires an authenticated user");
    return jsonText(event, String(user.confirmedAt !== null));
  });
}
