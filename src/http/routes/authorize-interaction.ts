// GET/POST /authorize_interaction?uri=… — where the WebFinger subscribe template
// (`http://ostatus.org/schema/1.0/subscribe`) sends people who want to follow or answer
// someone from their account on this server: sign in, see the account or post, follow.
import type { H3Event } from "h3";
import type { App } from "../../app.ts";
import type { Router } from "../router.ts";
import { readAppParams } from "../params.ts";
import { browserCsrf, csrfValid, sessionCookieValue } from "../cookies.ts";
import { htmlPage, messagePage, newNonce, redirectTo } from "../html/layout.ts";
import { type InteractionAccount, followPage } from "../html/interaction-pages.ts";
import { invalidCsrfPage, signInLocation } from "./oauth/sessions.ts";
import { currentSession, type BrowserSession } from "../../services/web-sessions.ts";
import { followState, resolveInteractionTarget } from "../../services/remote-interaction.ts";
import { requireVisibleAccount } from "../../services/account-lookup.ts";
import { followAccount } from "../../services/follows.ts";
import type { Account, Status } from "../../services/domain-types.ts";
import { ApiError } from "../../errors.ts";

function handleOf(app: App, a: Account): string {
  return `@${a.username}@${a.domain ?? app.config.domain}`;
}

function card(app: App, a: Account): InteractionAccount {
  return { handle: handleOf(app, a), displayName: a.displayName, noteHtml: a.note, url: a.url ?? a.uri };
}

function page(app: App, event: H3Event, session: BrowserSession, target: Account, post?: Status): Response {
  const csrf = browserCsrf(app, event);
  const nonce = newNonce();
  const html = followPage({
    nonce,
    viewerHandle: handleOf(app, session.account),
    target: card(app, target),
    accountId: target.id,
    csrf: csrf.token,
    state: followState(app, session.account, target),
    post: post && { contentHtml: post.content, spoilerText: post.spoilerText, url: post.url ?? post.uri },
  });
  return htmlPage(event, 200, html, nonce, csrf.setCookie ? [csrf.setCookie] : []);
}

export function registerAuthorizeInteractionRoutes(app: App, r: Router): void {
  r.get("/authorize_interaction", async (event) => {
    const p = await readAppParams(app, event);
    const session = currentSession(app, sessionCookieValue(event));
    if (!session) return redirectTo(event, signInLocation(event.url.pathname + event.url.search));
    const target = await resolveInteractionTarget(app, session.account, p.str("uri") ?? p.str("acct"));
    if (!target) return messagePage(event, 404, "Not found", "The account or post could not be found.");
    return target.kind === "account" ? page(app, event, session, target.account) : page(app, event, session, target.author, target.status);
  });

  r.post("/authorize_interaction", async (event) => {
    const p = await readAppParams(app, event);
    if (!csrfValid(app, event, p.str("authenticity_token"))) return invalidCsrfPage(event);
    const session = currentSession(app, sessionCookieValue(event));
    if (!session) return redirectTo(event, signInLocation("/authorize_interaction"));
    let target: Account;
    try {
      target = requireVisibleAccount(app, p.str("account_id"));
      followAccount(app, session.account, target, {});
    } catch (e) {
      if (e instanceof ApiError) return messagePage(event, e.status, "Could not follow", e.error);
      throw e;
    }
    return page(app, event, session, target);
  });
}
