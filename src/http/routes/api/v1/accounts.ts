// https://docs.joinmastodon.org/methods/accounts/ — registration, credentials, profile
// update, show, multi-get and lookup. Relationship sub-resources live in their own files.
import { getRouterParam } from "h3";
import type { App } from "../../../../app.ts";
import type { Router } from "../../../../http/router.ts";
import { forbidden, unprocessable } from "../../../../errors.ts";
import { parseId } from "../../../../lib/ids.ts";
import { toApiAccount, toApiAccounts, toApiCredentialAccount } from "../../../../serializers/account.ts";
import { toBlockedView } from "../../../../serializers/account-blocked-view.ts";
import type { Account } from "../../../../services/domain-types.ts";
import type { Id } from "../../../../lib/ids.ts";
import { blockedViewOf } from "../../../../services/blocks.ts";
import { findVisibleAccounts, lookupAccount, requireVisibleAccount } from "../../../../services/account-lookup.ts";
import { type ProfileInput, updateProfile } from "../../../../services/accounts.ts";
import { checkRegistrationRate, registerAccount } from "../../../../services/registration.ts";
import { bearerToken, clientIp, optionalUser, requireToken, requireUser } from "../../../auth.ts";
import { cachePublicIfAnonymous } from "../../../headers.ts";
import { type Params, readAppParams } from "../../../params.ts";

const MULTI_GET_MAX = 40;

/** An uploaded file, unless it is the empty part a browser sends for an unused file input. */
function upload(p: Params, name: string): File | undefined {
  const f = p.file(name);
  return f && !(f.size === 0 && f.name === "") ? f : undefined;
}

/** update_credentials parameters; absent keys leave the profile unchanged. */
export function readProfileInput(p: Params): ProfileInput {
  const source = p.obj("source");
  const privacy = source?.str("privacy");
  return {
    displayName: p.str("display_name"),
    note: p.str("note"),
    locked: p.bool("locked"),
    bot: p.bool("bot"),
    discoverable: p.bool("discoverable"),
    hideCollections: p.bool("hide_collections"),
    indexable: p.bool("indexable"),
    // `fields_attributes[0][name]=..` (indexed hash) or a JSON array of {name, value}.
    fields: p.list("fields_attributes")?.map((f) => ({ name: f.str("name") ?? "", value: f.str("value") ?? "" })),
    avatar: upload(p, "avatar"),
    header: upload(p, "header"),
    privacy: privacy === undefined || privacy.trim() === "" ? undefined : privacy,
    sensitive: source?.bool("sensitive"),
    language: source?.has("language") ? (source.str("language") ?? null) : undefined,
    // `attribution_domains[]` (4.4); more than the limit is refused, far more is not read.
    attributionDomains: p.strArray("attribution_domains", { max: 1000 }),
  };
}

export function registerAccountsRoutes(app: App, r: Router): void {
  /** A profile as `viewerId` may see it: reduced when the account blocks the viewer. */
  const accountFor = (viewerId: Id | null, account: Account) => {
    const json = toApiAccount(app, account);
    return blockedViewOf(app, viewerId, account.id) ? toBlockedView(json) : json;
  };

  // Registration through an app: the token must be an app token (client credentials).
  r.post("/api/v1/accounts", async (event) => {
    // Counted before anything else, as rack-attack does for every POST to this path.
    checkRegistrationRate(app, clientIp(event));
    const p = await readAppParams(app, event);
    const { token, user } = requireToken(app, event, "write:accounts");
    if (user || !token.applicationId) throw forbidden("This method requires an client credentials authentication");
    const agreement = p.str("agreement");
    const result = await registerAccount(
      app,
      { applicationId: token.applicationId, tokenScopes: token.scopes, ip: clientIp(event) },
      {
        username: p.str("username"),
        email: p.str("email"),
        password: p.str("password"),
        // Only true, "true" and "1" accept the terms (Rails' acceptance validator).
        agreement: agreement === "true" || agreement === "1",
        locale: p.str("locale"),
        reason: p.str("reason"),
        inviteCode: p.str("invite_code")?.trim() || undefined,
      },
    );
    event.res.headers.set("pragma", "no-cache");
    return result;
  });

  r.get("/api/v1/accounts/verify_credentials", (event) => {
    const v = requireUser(app, event, "read:accounts", "profile");
    return toApiCredentialAccount(app, v.account, v.user);
  });

  // PATCH only (Mastodon's one exception to Rails' PUT/PATCH pairs).
  r.patch("/api/v1/accounts/update_credentials", async (event) => {
    const p = await readAppParams(app, event);
    const v = requireUser(app, event, "write:accounts");
    const updated = await updateProfile(app, v.account, v.user, readProfileInput(p));
    return toApiCredentialAccount(app, updated.account, updated.user);
  });

  r.get("/api/v1/accounts/lookup", async (event) => {
    const viewer = optionalUser(app, event, "read:accounts");
    const p = await readAppParams(app, event);
    const account = await lookupAccount(app, p.requireStr("acct"), { resolve: viewer !== null });
    cachePublicIfAnonymous(event, viewer !== null || bearerToken(event) !== undefined);
    return accountFor(viewer?.account.id ?? null, account);
  });

  // 4.3 multi-get: `id[]`; unknown and hidden ids are skipped.
  r.get("/api/v1/accounts", async (event) => {
    optionalUser(app, event, "read:accounts");
    const p = await readAppParams(app, event);
    const ids = [...new Set(p.strArray("id") ?? [])];
    if (ids.length > MULTI_GET_MAX) throw unprocessable(`Too many ids requested (maximum is ${MULTI_GET_MAX})`);
    const valid = ids.map((id) => parseId(id)).filter((id): id is string => id !== undefined);
    return toApiAccounts(app, findVisibleAccounts(app, valid));
  });

  r.get("/api/v1/accounts/:id", (event) => {
    const viewer = optionalUser(app, event, "read:accounts");
    const account = requireVisibleAccount(app, getRouterParam(event, "id"));
    cachePublicIfAnonymous(event, viewer !== null || bearerToken(event) !== undefined);
    return accountFor(viewer?.account.id ?? null, account);
  });
}
