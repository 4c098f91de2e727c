// GET /api/v1/accounts/:id/identity_proofs: removed from Mastodon (Keybase proofs), kept as a
// deprecated endpoint that needs a user token and always answers [] (Api::V1::Accounts::IdentityProofsController).
// https://docs.joinmastodon.org/methods/accounts/#identity_proofs
import type { App } from "../../../../app.ts";
import type { Router } from "../../../router.ts";
import { requireUser } from "../../../auth.ts";

// deprecate_api '2022-03-30' (DeprecationConcern).
const DEPRECATED_AT = "@1648598400";

export function registerIdentityProofsRoutes(app: App, r: Router): void {
  r.get("/api/v1/accounts/:id/identity_proofs", (event) => {
    requireUser(app, event);
    event.res.headers.set("deprecation", DEPRECATED_AT);
    return [];
  });
}
