// https://docs.joinmastodon.org/methods/profile/ — removing the avatar or header (4.2).
import type { App } from "../../../../app.ts";
import type { Router } from "../../../../http/router.ts";
import { toApiCredentialAccount } from "../../../../serializers/account.ts";
import { removeProfileImage } from "../../../../services/accounts.ts";
import { requireUser } from "../../../auth.ts";

export function registerProfileRoutes(app: App, r: Router): void {
  for (const kind of ["avatar", "header"] as const) {
    r.delete(`/api/v1/profile/${kind}`, async (event) => {
      const v = requireUser(app, event, "write:accounts");
      const updated = await removeProfileImage(app, v.account, v.user, kind);
      return toApiCredentialAccount(app, updated.account, updated.user);
    });
  }
}
