// https://docs.joinmastodon.org/methods/apps/
import type { App } from "../../../../app.ts";
import type { Router } from "../../../../http/router.ts";
import { requireToken } from "../../../auth.ts";
import { readAppParams } from "../../../params.ts";
import { ApiError } from "../../../../errors.ts";
import { findTokenApplication, registerApplication } from "../../../../services/oauth-apps.ts";
import { toApiApplication, toApiCredentialApplication } from "../../../../serializers/application.ts";

export function registerAppsRoutes(app: App, r: Router): void {
  // https://docs.joinmastodon.org/methods/apps/#create — public; redirect_uris is a string
  // (possibly several URIs separated by whitespace) or, since 4.3, an array.
  r.post("/api/v1/apps", async (event) => {
    const p = await readAppParams(app, event);
    const { application, clientSecret } = registerApplication(app, {
      name: p.str("client_name"),
      redirectUris: p.strArray("redirect_uris", { allowScalar: true, max: 100 }),
      scopes: p.str("scopes"),
      website: p.str("website"),
    });
    return toApiCredentialApplication(app, application, clientSecret);
  });

  // https://docs.joinmastodon.org/methods/apps/#verify_credentials — any token, no scope (4.3+).
  r.get("/api/v1/apps/verify_credentials", (event) => {
    const viewer = requireToken(app, event);
    const application = findTokenApplication(app, viewer.token.applicationId);
    if (!application) throw new ApiError(401, "The access token is invalid");
    return toApiApplication(app, application);
  });
}
