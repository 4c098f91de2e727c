// Post history import (issue 16 part 7; Mastodon has no such page): /settings/post_import
// takes a Mastodon archive ZIP (multipart, streamed to disk as it arrives, refused past
// maxArchiveImportBytes by its declared length or as it streams), checks it and starts the
// job; the page shows each import's progress and what was skipped and why.
import type { H3Event } from "h3";
import type { App } from "../../../app.ts";
import type { Router } from "../../router.ts";
import { ApiError } from "../../../errors.ts";
import { megabytes } from "../../../lib/sizes.ts";
import { currentSession, type BrowserSession } from "../../../services/web-sessions.ts";
import { recentPostImports, startPostImport } from "../../../services/post-import.ts";
import { browserCsrf, CSRF_COOKIE, csrfValid, readCookies, sessionCookieValue } from "../../cookies.ts";
import { htmlPage, newNonce, redirectTo } from "../../html/layout.ts";
import { postImportPage } from "../../html/settings/post-import.ts";
import { readUploadBody } from "../../upload-body.ts";
import { invalidCsrfPage, signInLocation } from "../oauth/sessions.ts";

const PAGE = "/settings/post_import";

export function registerPostImportRoutes(app: App, r: Router): void {
  const signedIn = (event: H3Event) => currentSession(app, sessionCookieValue(event));

  const page = (event: H3Event, browser: BrowserSession, status: number, error?: string) => {
    const csrf = browserCsrf(app, event);
    const nonce = newNonce();
    const html = postImportPage({
      nonce,
      csrf: csrf.token,
      maxBytes: app.config.maxArchiveImportBytes,
      imports: recentPostImports(app, browser.account).map(({ imp, notes, notedCount }) => ({
        id: imp.id,
        filename: imp.originalFilename,
        deliver: imp.deliver,
        state: imp.state,
        error: imp.error,
        total: imp.totalItems,
        processed: imp.processedItems,
        imported: imp.importedItems,
        boosts: imp.boostsSkipped,
        other: imp.otherSkipped,
        notes,
        notedCount,
      })),
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
    // Nothing of the body is stored for a request that cannot be valid: without the CSRF
    // cookie no token can match, and only a signed-in browser may fill the disk.
    if (!readCookies(event)[CSRF_COOKIE]) return invalidCsrfPage(event);
    const browser = signedIn(event);
    if (!browser) return redirectTo(event, signInLocation(PAGE));
    const limit = app.config.maxArchiveImportBytes;
    let body;
    try {
      body = await readUploadBody(app, event, { archive: limit });
    } catch (e) {
      if (e instanceof ApiError && e.status === 413) {
        return page(event, browser, 413, `The archive was refused: it is larger than ${megabytes(limit)}, the largest this server accepts.`);
      }
      if (e instanceof ApiError && e.status < 500) return page(event, browser, e.status, e.error);
      throw e;
    }
    try {
      if (!csrfValid(app, event, body.params.str("authenticity_token"))) return invalidCsrfPage(event);
      const file = body.files.archive;
      if (!file || file.size === 0) return page(event, browser, 422, "Choose a Mastodon archive (a ZIP file) to upload.");
      const deliver = ["1", "true", "on"].includes(body.params.str("send_to_followers") ?? "");
      try {
        await startPostImport(app, browser.account, file, { deliver });
      } catch (e) {
        if (e instanceof ApiError && e.status < 500) return page(event, browser, e.status, e.error);
        throw e;
      }
      return redirectTo(event, PAGE);
    } finally {
      await body.discard();
    }
  });
}
