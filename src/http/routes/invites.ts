// https://docs.joinmastodon.org/methods/invites/ — GET /invite/:code: JSON for apps (the code
// and where the instance API is), an HTML page for browsers.
import { getRouterParam } from "h3";
import type { App } from "../../app.ts";
import type { Router } from "../router.ts";
import { inviteLanding } from "../../services/invites.ts";
import { htmlPage, newNonce } from "../html/layout.ts";
import { invitePage } from "../html/email-pages.ts";

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
}
