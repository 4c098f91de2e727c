import type { App } from "../app.ts";
import { tx } from "../db/db.ts";
import { type AuthorizedApp, listAuthorizedApps, liveTokenIdsOfUserApp } from "../storage/authorized-apps.ts";
import { findSuperappByName } from "../storage/applications.ts";
import type { User } from "../storage/users.ts";
import { revokeAccessToken } from "./oauth-token.ts";
import { WEB_APP } from "./tokens.ts";

// Settings → Authorized apps (Mastodon's Settings::ApplicationsController on its "authorized
// applications" list): every app holding a live token of the user; revoking one ends all its tokens.

/** The apps the user authorized; the built-in web app's tokens are the browser sessions, listed apart. */
export function authorizedApps(app: App, user: User): AuthorizedApp[] {
  const web = findSuperappByName(app.db, WEB_APP);
  return listAuthorizedApps(app.db, user.id, app.now(), web?.id ?? null);
}

/** Revokes every live token the user gave the app (their sessions, push subscriptions and streams end). Returns how many. */
export function revokeAuthorizedApp(app: App, user: User, applicationId: string): number {
  if (!/^\d{1,20}$/.test(applicationId)) return 0;
  const web = findSuperappByName(app.db, WEB_APP);
  if (web && web.id === applicationId) return 0;
  return tx(app.db, () => {
    const ids = liveTokenIdsOfUserApp(app.db, user.id, applicationId, app.now());
    for (const id of ids) revokeAccessToken(app, id);
    return ids.length;
  });
}
