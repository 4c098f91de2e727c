// Mastodon's settings pages for moving (no REST API exists for these): /settings/aliases
// (Settings::AliasesController) and /settings/migration (Settings::MigrationsController).
// Server-rendered forms with CSRF, signed in by the web session.
import type { H3Event } from "h3";
import type { App } from "../../../app.ts";
import { ApiError } from "../../../errors.ts";
import { addAlias, listAliases, migrationCooldownUntil, moveAccount, movedToAcct, removeAlias } from "../../../services/account-migration.ts";
import { currentSession, type BrowserSession } from "../../../services/web-sessions.ts";
import { browserCsrf, csrfValid, sessionCookieValue } from "../../cookies.ts";
import { htmlPage, newNonce, redirectTo } from "../../html/layout.ts";
import { aliasesPage, migrationPage } from "../../html/settings/move.ts";
import { readAppParams } from "../../params.ts";
import type { Router } from "../../router.ts";
import { invalidCsrfPage, signInLocation } from "../oauth/sessions.ts";

export function registerSettingsMoveRoutes(app: App, r: Router): void {
  const signedIn = (event: H3Event) => currentSession(app, sessionCookieValue(event));
  const handle = (b: BrowserSession) => `@${b.account.username}@${app.config.domain}`;

  const aliases = (event: H3Event, b: BrowserSession, status: number, error?: string) => {
    const csrf = browserCsrf(app, event);
    const nonce = newNonce();
    const html = aliasesPage({ nonce, instanceTitle: app.config.title, csrf: csrf.token, handle: handle(b), aliases: listAliases(app, b.account), error });
    return htmlPage(event, status, html, nonce, csrf.setCookie ? [csrf.setCookie] : []);
  };
  const migration = (event: H3Event, b: BrowserSession, status: number, form: { acct?: string; error?: string } = {}) => {
    const csrf = browserCsrf(app, event);
    const nonce = newNonce();
    const until = migrationCooldownUntil(app, b.account);
    const html = migrationPage({
      nonce,
      instanceTitle: app.config.title,
      csrf: csrf.token,
      handle: handle(b),
      movedTo: movedToAcct(app, b.account),
      cooldownUntil: until === undefined ? null : new Date(until).toISOString(),
      ...form,
    });
    return htmlPage(event, status, html, nonce, csrf.setCookie ? [csrf.setCookie] : []);
  };

  /** A POST: CSRF, then the session, then `act`; a refused input shows the page again with the message. */
  const post = (path: string, act: (b: BrowserSession, p: Awaited<ReturnType<typeof readAppParams>>) => Promise<void>, again: (event: H3Event, b: BrowserSession, status: number, error: string, p: Awaited<ReturnType<typeof readAppParams>>) => Response) =>
    r.post(path, async (event) => {
      const p = await readAppParams(app, event);
      if (!csrfValid(app, event, p.str("authenticity_token"))) return invalidCsrfPage(event);
      const b = signedIn(event);
      if (!b) return redirectTo(event, signInLocation(path.replace(/\/remove$/, "")));
      try {
        await act(b, p);
      } catch (e) {
        if (e instanceof ApiError && e.status < 500) return again(event, b, e.status, e.error, p);
        throw e;
      }
      return redirectTo(event, path.replace(/\/remove$/, ""));
    });

  r.get("/settings/aliases", (event) => {
    const b = signedIn(event);
    return b ? aliases(event, b, 200) : redirectTo(event, signInLocation("/settings/aliases"));
  });
  post("/settings/aliases", (b, p) => addAlias(app, b.account, p.str("acct") ?? ""), (event, b, status, error) => aliases(event, b, status, error));
  post("/settings/aliases/remove", async (b, p) => removeAlias(app, b.account, p.str("alias") ?? ""), (event, b, status, error) => aliases(event, b, status, error));

  r.get("/settings/migration", (event) => {
    const b = signedIn(event);
    return b ? migration(event, b, 200) : redirectTo(event, signInLocation("/settings/migration"));
  });
  post(
    "/settings/migration",
    async (b, p) => void (await moveAccount(app, b.user, b.account, { acct: p.str("acct") ?? "", password: p.str("current_password") ?? "" })),
    (event, b, status, error, p) => migration(event, b, status, { acct: p.str("acct")?.slice(0, 500), error }),
  );
}
