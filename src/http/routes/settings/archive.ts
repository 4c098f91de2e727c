// Mastodon's /settings/export "Request your archive" (BackupsController): a signed-in browser
// asks for an archive (once every 7 days), a job writes it, the page links the download.
import { createReadStream } from "node:fs";
import { Readable } from "node:stream";
import { getRouterParam, type H3Event } from "h3";
import type { App } from "../../../app.ts";
import type { Router } from "../../router.ts";
import { ApiError } from "../../../errors.ts";
import { currentSession, type BrowserSession } from "../../../services/web-sessions.ts";
import { ARCHIVE_INTERVAL_MS, archivesOf, requestArchive, requireArchiveFile } from "../../../services/account-archives.ts";
import { browserCsrf, csrfValid, sessionCookieValue } from "../../cookies.ts";
import { htmlPage, newNonce, redirectTo } from "../../html/layout.ts";
import { archivePage } from "../../html/settings/archive.ts";
import { readAppParams } from "../../params.ts";
import { invalidCsrfPage, signInLocation } from "../oauth/sessions.ts";

const PAGE = "/settings/archive";

export function registerArchiveRoutes(app: App, r: Router): void {
  const signedIn = (event: H3Event) => currentSession(app, sessionCookieValue(event));

  const page = (event: H3Event, browser: BrowserSession, status: number, error?: string) => {
    const csrf = browserCsrf(app, event);
    const nonce = newNonce();
    const archives = archivesOf(app, browser.account);
    const html = archivePage({
      nonce,
      csrf: csrf.token,
      archives: archives.map((a) => ({ id: a.id, createdAt: a.createdAt, size: a.size, ready: a.file !== null })),
      canRequest: !archives[0] || archives[0].createdAt <= app.now() - ARCHIVE_INTERVAL_MS,
      error,
    });
    return htmlPage(event, status, html, nonce, csrf.setCookie ? [csrf.setCookie] : []);
  };

  r.get(PAGE, (event) => {
    const browser = signedIn(event);
    if (!browser) return redirectTo(event, signInLocation(PAGE));
    return page(event, browser, 200);
  });

  r.post(PAGE, async (event) => {
    const p = await readAppParams(app, event);
    if (!csrfValid(app, event, p.str("authenticity_token"))) return invalidCsrfPage(event);
    const browser = signedIn(event);
    if (!browser) return redirectTo(event, signInLocation(PAGE));
    try {
      requestArchive(app, browser.account);
    } catch (e) {
      if (e instanceof ApiError && e.status < 500) return page(event, browser, e.status, e.error);
      throw e;
    }
    return redirectTo(event, PAGE);
  });

  r.get("/settings/archives/:id/download", (event) => {
    const browser = signedIn(event);
    if (!browser) return redirectTo(event, signInLocation(PAGE));
    const f = requireArchiveFile(app, browser.account, getRouterParam(event, "id") ?? "");
    const body = Readable.toWeb(createReadStream(f.path)) as ReadableStream<Uint8Array>;
    return new Response(body, {
      headers: {
        "content-type": "application/zip",
        "content-length": String(f.size),
        "content-disposition": `attachment; filename="${f.name}"`,
        "cache-control": "no-store",
        "x-content-type-options": "nosniff",
      },
    });
  });
}
