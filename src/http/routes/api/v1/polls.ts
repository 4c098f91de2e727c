// https://docs.joinmastodon.org/methods/polls/ — view a poll, vote in it. Posting one goes
// through POST /api/v1/statuses (`poll[...]`, statuses.ts).
import { getRouterParam } from "h3";
import type { App } from "../../../../app.ts";
import type { Router } from "../../../../http/router.ts";
import { toApiPollAlone } from "../../../../serializers/poll.ts";
import { isPossiblyStale, requireVisiblePoll, votePoll } from "../../../../services/polls.ts";
import { refreshRemotePoll } from "../../../../services/remote-lookup.ts";
import { optionalUser, requireUser } from "../../../auth.ts";
import { cachePublicIfAnonymous } from "../../../headers.ts";
import { readAppParams } from "../../../params.ts";

export function registerPollsRoutes(app: App, r: Router): void {
  // A poll on a status the caller may not see is 404: a private one needs a token (the seed).
  r.get("/api/v1/polls/:id", async (event) => {
    const viewer = optionalUser(app, event, "read", "read:statuses");
    const viewerId = viewer?.account.id ?? null;
    let target = requireVisiblePoll(app, viewerId, getRouterParam(event, "id"));
    // Mastodon refreshes a remote poll for signed-in readers when it may be stale.
    if (viewer && isPossiblyStale(app, target.poll, target.status)) {
      await refreshRemotePoll(app, target.status, viewer.account);
      target = requireVisiblePoll(app, viewerId, target.poll.id);
    }
    cachePublicIfAnonymous(event, !!viewer);
    return toApiPollAlone(app, target.poll, viewerId);
  });

  r.post("/api/v1/polls/:id/votes", async (event) => {
    const p = await readAppParams(app, event);
    const viewer = requireUser(app, event, "write", "write:statuses");
    const target = requireVisiblePoll(app, viewer.account.id, getRouterParam(event, "id"));
    // Mastodon reads `choices` raw (params.require): a bare scalar is one choice, a blank one none.
    const blank = p.str("choices")?.trim() === "";
    const choices = blank ? undefined : p.strArray("choices", { allowScalar: true, max: 100 });
    const poll = votePoll(app, viewer.account, target, choices);
    return toApiPollAlone(app, poll, viewer.account.id);
  });
}
