// https://docs.joinmastodon.org/methods/profile/ — the caller's profile with its sources
// (GET/PATCH /api/v1/profile, 4.6) and removing the avatar or header (4.2).
import type { App } from "../../../../app.ts";
import type { Router } from "../../../../http/router.ts";
import { toApiCredentialAccount } from "../../../../serializers/account.ts";
import { toApiProfile } from "../../../../serializers/profile.ts";
import { type ProfileInput, removeProfileImage, updateProfile } from "../../../../services/accounts.ts";
import { requireUser } from "../../../auth.ts";
import { type Params, readAppParams } from "../../../params.ts";
import { readProfileInput } from "./accounts.ts";

/** update_credentials' parameters without `source[...]`, plus the 4.6 profile settings. */
function readProfileParams(p: Params): ProfileInput {
  const { privacy: _p, sensitive: _s, language: _l, ...common } = readProfileInput(p);
  return {
    ...common,
    avatarDescription: p.str("avatar_description"),
    headerDescription: p.str("header_description"),
    showMedia: p.bool("show_media"),
    showMediaReplies: p.bool("show_media_replies"),
    showFeatured: p.bool("show_featured"),
  };
}

export function registerProfileRoutes(app: App, r: Router): void {
  r.get("/api/v1/profile", async (event) => {
    await readAppParams(app, event);
    const v = requireUser(app, event, "read:accounts", "profile");
    return toApiProfile(app, v.account);
  });

  // PATCH and PUT (Rails' `resource :profile`); an Update(Person) goes to followers.
  for (const method of ["patch", "put"] as const) {
    r[method]("/api/v1/profile", async (event) => {
      const p = await readAppParams(app, event);
      const v = requireUser(app, event, "write:accounts");
      const updated = await updateProfile(app, v.account, v.user, readProfileParams(p));
      return toApiProfile(app, updated.account);
    });
  }

  for (const kind of ["avatar", "header"] as const) {
    r.delete(`/api/v1/profile/${kind}`, async (event) => {
      const v = requireUser(app, event, "write:accounts");
      const updated = await removeProfileImage(app, v.account, v.user, kind);
      return toApiCredentialAccount(app, updated.account, updated.user);
    });
  }
}
