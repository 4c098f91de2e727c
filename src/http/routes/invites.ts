// https://docs.joinmastodon.org/methods/invites/ — GET /invite/:code: JSON for apps (the code
// and where the instance API is), an HTML page for browsers. And Mastodon's /invites web page:
// a signed-in user's own invite links (create, expire), by the same admin use cases as the CLI.
import { getRouterParam, type H3Event } from "h3";
import type { App } from "../../app.ts";
import type { Router } from "../router.ts";
import { ApiError } from "../../errors.ts";
import { makeActor } from "../../admin/actor.ts";
import { createInvite, expireInvite, inviteRow, listInvitesFor, requireInvite } from "../../admin/invites.ts";
import { inviteLanding, userMayInvite } from "../../services/invites.ts";
import { currentSession, type BrowserSession } from "../../services/web-sessions.ts";
import { browserCsrf, csrfValid, sessionCookieValue } from "../cookies.ts";
import { htmlPage, newNonce, redirectTo } from "../html/layout.ts";
import { invitePage, myInvitesPage } from "../html/invite-pages.ts";
import { readAppParams } from "../params.ts";
import { invalidCsrfPage, signInLocation } from "./oauth/sessions.ts";

/** A whole number from a form field; "" is none, anything else unparsable is NaN (refused by the use case). */
const formNumber = (v: string | undefined): number | null => (v === undefined || v.trim() === "" ? null : /^-?\d{1,12}$/.test(v.trim()) ? Number(v.trim()) : NaN);

export function registerInviteRoutes(app: App, r: Router): void {
  r.get("/invite/:code", (event) => {
    const raw = getRouterParam(event, "code", { decode: true }) ?? "";
    // Rails' format: a `.json` suffix or an Accept header asking for JSON.
    const json = raw.endsWith(".json") || (event.req.headers.get("accept") ?? "").includes("application/json");
    const code = raw.replace(/\.json$/, "");
    const { invite, inviterUsername } = inviteLanding(app, code);
    if (json) return { invite_code: invite.code, instance_api_url: `${app.baseUrl}/api/v2/instance` };
    const nonce = newNonce();
    const html = invitePage({ nonce, instanceTitle: app.config.title, domain: app.config.domain, code: invite.code, inviter: inviterUsername });
    return htmlPage(event, 200, html, nonce);
  });

  const page = (event: H3Event, browser: BrowserSession, status: number, error?: string) => {
    const actor = makeActor(app, browser.user, browser.account, "api");
    const csrf = browserCsrf(app, event);
    const nonce = newNonce();
    const invites = listInvitesFor(app, actor, { limit: 100 }).map((i) => inviteRow(app, i));
    const html = myInvitesPage({
      nonce,
      instanceTitle: app.config.title,
      csrf: csrf.token,
      handle: `@${browser.account.username}@${app.config.domain}`,
      invites,
      canCreate: userMayInvite(app, browser.user),
      error,
    });
    return htmlPage(event, status, html, nonce, csrf.setCookie ? [csrf.setCookie] : []);
  };
  const signedIn = (event: H3Event) => currentSession(app, sessionCookieValue(event));

  r.get("/invites", (event) => {
    const browser = signedIn(event);
    if (!browser) return redirectTo(event, signInLocation("/invites"));
    return page(event, browser, 200);
  });

  r.post("/invites", async (event) => {
    const p = await readAppParams(app, event);
    if (!csrfValid(app, event, p.str("authenticity_token"))) return invalidCsrfPage(event);
    const browser = signedIn(event);
    if (!browser) return redirectTo(event, signInLocation("/invites"));
    const f = p.obj("invite");
    try {
      createInvite(app, makeActor(app, browser.user, browser.account, "api"), {
        maxUses: formNumber(f?.str("max_uses")),
        expiresIn: formNumber(f?.str("expires_in")),
        autofollow: f?.str("autofollow") === "1",
        comment: f?.str("comment"),
      });
    } catch (e) {
      if (e instanceof ApiError && e.status < 500) return page(event, browser, e.status, e.error);
      throw e;
    }
    return redirectTo(event, "/invites");
  });

  r.post("/invites/:id/expire", async (event) => {
    const p = await readAppParams(app, event);
    if (!csrfValid(app, event, p.str("authenticity_token"))) return invalidCsrfPage(event);
    const browser = signedIn(event);
    if (!browser) return redirectTo(event, signInLocation("/invites"));
    try {
      expireInvite(app, makeActor(app, browser.user, browser.account, "api"), requireInvite(app, getRouterParam(event, "id") ?? ""));
    } catch (e) {
      if (e instanceof ApiError && e.status < 500) return page(event, browser, e.status, e.error);
      throw e;
    }
    return redirectTo(event, "/invites");
  });
}
