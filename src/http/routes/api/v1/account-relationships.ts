// https://docs.joinmastodon.org/methods/accounts/#follow (follow … familiar_followers, note)
import { getRouterParam, type H3Event } from "h3";
import type { App } from "../../../../app.ts";
import type { Router } from "../../../router.ts";
import { optionalUser, requireUser, type Viewer } from "../../../auth.ts";
import { cachePublicIfAnonymous } from "../../../headers.ts";
import { pageParams, setLinkHeader } from "../../../pagination.ts";
import { readAppParams } from "../../../params.ts";
import { toApiAccounts } from "../../../../serializers/account.ts";
import { toApiRelationship, toApiRelationships } from "../../../../serializers/relationship.ts";
import type { Account } from "../../../../services/domain-types.ts";
import { requireVisibleAccount } from "../../../../services/account-lookup.ts";
import { blockAccount, unblockAccount } from "../../../../services/blocks.ts";
import {
  followAccount,
  listFollowers,
  listFollowing,
  parseFollowLanguages,
  removeFromFollowers,
  unfollowAccount,
} from "../../../../services/follows.ts";
import { muteAccount, unmuteAccount } from "../../../../services/mutes.ts";
import {
  accountsOfPage,
  familiarFollowers,
  parseAccountIds,
  relationshipTargets,
  setAccountNote,
} from "../../../../services/relationships.ts";

type Action = (viewer: Viewer, target: Account, event: H3Event) => Promise<void> | void;

export function registerAccountRelationshipsRoutes(app: App, r: Router): void {
  /** A POST on /api/v1/accounts/:id/<action> that answers the Relationship afterwards. */
  const action = (name: string, scope: string, run: Action) =>
    r.post(`/api/v1/accounts/:id/${name}`, async (event) => {
      await readAppParams(app, event);
      const viewer = requireUser(app, event, scope);
      const target = requireVisibleAccount(app, getRouterParam(event, "id"));
      await run(viewer, target, event);
      return toApiRelationship(app, viewer.account.id, target.id);
    });

  r.post("/api/v1/accounts/:id/follow", async (event) => {
    const p = await readAppParams(app, event);
    const viewer = requireUser(app, event, "write:follows");
    const target = requireVisibleAccount(app, getRouterParam(event, "id"));
    const languages = parseFollowLanguages(p.strArray("languages", { allowScalar: true }));
    const res = followAccount(app, viewer.account, target, { showReblogs: p.bool("reblogs"), notify: p.bool("notify"), languages });
    // Mastodon answers an unlocked target as followed with the chosen options, even before a
    // remote Accept; a locked one from the stored state (requested: true).
    const override = res.optimistic
      ? {
          following: true,
          requested: false,
          showing_reblogs: res.record.showReblogs,
          notifying: res.record.notify,
          languages: res.record.languages,
        }
      : undefined;
    return toApiRelationship(app, viewer.account.id, target.id, override);
  });

  action("unfollow", "write:follows", (v, t) => unfollowAccount(app, v.account, t));
  action("remove_from_followers", "write:follows", (v, t) => removeFromFollowers(app, v.account, t));
  action("block", "write:blocks", (v, t) => blockAccount(app, v.account, t));
  action("unblock", "write:blocks", (v, t) => unblockAccount(app, v.account, t));
  action("mute", "write:mutes", async (v, t, event) => {
    const p = await readAppParams(app, event);
    muteAccount(app, v.account, t, { notifications: p.bool("notifications"), duration: p.int("duration") });
  });
  action("unmute", "write:mutes", (v, t) => unmuteAccount(app, v.account, t));
  action("note", "write:accounts", async (v, t, event) => {
    const p = await readAppParams(app, event);
    setAccountNote(app, v.account, t, p.str("comment"));
  });

  // https://docs.joinmastodon.org/methods/accounts/#relationships
  r.get("/api/v1/accounts/relationships", async (event) => {
    const p = await readAppParams(app, event);
    const viewer = requireUser(app, event, "read:follows");
    const ids = relationshipTargets(app, parseAccountIds(p.strArray("id", { allowScalar: true })), p.bool("with_suspended") === true);
    return toApiRelationships(app, viewer.account.id, ids);
  });

  // https://docs.joinmastodon.org/methods/accounts/#familiar_followers
  r.get("/api/v1/accounts/familiar_followers", async (event) => {
    const p = await readAppParams(app, event);
    const viewer = requireUser(app, event, "read:follows");
    const result = familiarFollowers(app, viewer.account.id, parseAccountIds(p.strArray("id", { allowScalar: true })));
    const serialized = toApiAccounts(app, result.flatMap((x) => x.accounts));
    const byId = new Map(serialized.map((a) => [a.id, a]));
    return result.map((x) => ({ id: x.id, accounts: x.accounts.map((a) => byId.get(a.id)!) }));
  });

  // https://docs.joinmastodon.org/methods/accounts/#followers and #following
  for (const kind of ["followers", "following"] as const) {
    r.get(`/api/v1/accounts/:id/${kind}`, async (event) => {
      const p = await readAppParams(app, event);
      const viewer = optionalUser(app, event, "read:accounts");
      const owner = requireVisibleAccount(app, getRouterParam(event, "id"));
      const page = pageParams(p, 40, 80);
      const viewerId = viewer?.account.id ?? null;
      const rows = kind === "followers" ? listFollowers(app, owner, viewerId, page) : listFollowing(app, owner, viewerId, page);
      const { accounts, cursors } = accountsOfPage(app, rows);
      setLinkHeader(app, event, p, { cursors, limit: page.limit, prevParam: "since_id" });
      cachePublicIfAnonymous(event, viewer !== null);
      return toApiAccounts(app, accounts);
    });
  }
}
