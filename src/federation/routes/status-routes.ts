// Status objects (AP §4, §6): the Note on its id and its human URL, its Create/Announce
// activity, and its replies/likes/shares collections.
import type { H3Event } from "h3";
import type { App } from "../../app.ts";
import { parseId } from "../../lib/ids.ts";
import type { Router } from "../../http/router.ts";
import type { Account } from "../../storage/accounts.ts";
import type { Status } from "../../storage/statuses.ts";
import { toApStatusActivities } from "../serializers/activities.ts";
import { toApCountCollection, toApReplies } from "../serializers/collections.ts";
import { ACTIVITY_CONTEXT, withContext } from "../serializers/context.ts";
import { toApNote } from "../serializers/note.ts";
import { cacheFor, notFoundAp, param, redirectForBrowsers, type Requester, requester, sendAp, wantsJson } from "./ap-response.ts";
import { statusPage } from "./html-pages.ts";
import { findServedAccount, findServedStatus, findVisibleOriginal, statusIdParam, wantsNoindex } from "./served-objects.ts";

const isPublic = (s: Status) => s.visibility === "public" || s.visibility === "unlisted";

interface Target {
  account: Account;
  status: Status;
  json: boolean;
  who: Requester;
}

/**
 * The status named by `:username` and `:id` as `who` may see it; 404 when unknown or hidden.
 * `negotiate`: browsers are answered without a signature check (they get HTML).
 */
async function target(app: App, event: H3Event, negotiate: boolean): Promise<Target> {
  const found = findServedAccount(app, param(event, "username"));
  const id = statusIdParam(param(event, "id"));
  if (!found || !id) throw notFoundAp();
  const json = !negotiate || wantsJson(event, found.forcedJson || id.forcedJson);
  const who = json ? await requester(app, event) : { signerId: null };
  const status = findServedStatus(app, found.account, id.id, who.signerId);
  if (!status) throw notFoundAp();
  return { account: found.account, status, json, who };
}

export function registerStatusObjectRoutes(app: App, r: Router): void {
  const note = (humanUrl: boolean) => async (event: H3Event) => {
    const { account, status, json, who } = await target(app, event, true);
    if (status.reblogOfId) {
      // A boost has no Note of its own: Mastodon sends everyone to the boosted post.
      const original = findVisibleOriginal(app, status, who.signerId);
      if (!original) throw notFoundAp();
      // The target depends on Accept: caches must keep the two apart.
      return new Response(null, { status: 302, headers: { location: json ? original.uri : (original.url ?? original.uri), vary: "Accept" } });
    }
    if (!json) return humanUrl ? statusPage(app, event, account, status, wantsNoindex(app, account)) : redirectForBrowsers(event, status.url ?? status.uri);
    return sendAp(app, event, toApNote(app, status), cacheFor(who, isPublic(status)));
  };
  r.get("/users/:username/statuses/:id", note(false));
  r.get("/@:username/:id", note(true));

  r.get("/users/:username/statuses/:id/activity", async (event) => {
    const { status, who } = await target(app, event, false);
    if (status.reblogOfId && !findVisibleOriginal(app, status, who.signerId)) throw notFoundAp();
    const [activity] = toApStatusActivities(app, [status]);
    if (!activity) throw notFoundAp();
    return sendAp(app, event, withContext(ACTIVITY_CONTEXT, activity), cacheFor(who, isPublic(status)));
  });

  r.get("/users/:username/statuses/:id/replies", async (event) => {
    const { status, who } = await target(app, event, false);
    if (status.reblogOfId) throw notFoundAp();
    const q = event.url.searchParams;
    const doc = toApReplies(app, status, {
      page: q.has("page"),
      otherAccounts: q.get("only_other_accounts") === "true",
      minId: parseId(q.get("min_id") ?? undefined),
    });
    return sendAp(app, event, doc, cacheFor(who, isPublic(status)));
  });

  for (const kind of ["likes", "shares"] as const) {
    r.get(`/users/:username/statuses/:id/${kind}`, async (event) => {
      const { status, who } = await target(app, event, false);
      if (status.reblogOfId) throw notFoundAp();
      return sendAp(app, event, toApCountCollection(status, kind), cacheFor(who, isPublic(status)));
    });
  }
}
