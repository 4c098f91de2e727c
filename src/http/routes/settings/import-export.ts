// Mastodon's settings pages for moving data (https://docs.joinmastodon.org/user/moving/#export):
// /settings/import-export shows the CSV downloads (/settings/exports/*.csv, Mastodon's formats)
// and the import form (POST /settings/imports, multipart, Mastodon's form_import[...] names);
// the import runs as a job and the page shows its progress and the rows it could not import.
import { getRouterParam, type H3Event } from "h3";
import type { App } from "../../../app.ts";
import type { Router } from "../../router.ts";
import { ApiError } from "../../../errors.ts";
import { currentSession, type BrowserSession } from "../../../services/web-sessions.ts";
import { EXPORT_FILENAMES, exportCsv, exportTotals, isExportKind } from "../../../services/csv-export.ts";
import { createImport, isImportType, MAX_IMPORT_BYTES, recentImports } from "../../../services/csv-import.ts";
import { browserCsrf, csrfValid, sessionCookieValue } from "../../cookies.ts";
import { htmlPage, messagePage, newNonce, redirectTo } from "../../html/layout.ts";
import { importExportPage } from "../../html/settings/import-export.ts";
import { readParams } from "../../params.ts";
import { invalidCsrfPage, signInLocation } from "../oauth/sessions.ts";

const PAGE = "/settings/import-export";

export function registerImportExportRoutes(app: App, r: Router): void {
  const signedIn = (event: H3Event) => currentSession(app, sessionCookieValue(event));

  const page = (event: H3Event, browser: BrowserSession, status: number, error?: string) => {
    const csrf = browserCsrf(app, event);
    const nonce = newNonce();
    const html = importExportPage({
      nonce,
      csrf: csrf.token,
      handle: `@${browser.account.username}@${app.config.domain}`,
      totals: exportTotals(app, browser.account),
      files: EXPORT_FILENAMES,
      imports: recentImports(app, browser.account).map(({ imp, failures }) => ({
        id: imp.id,
        type: imp.type,
        overwrite: imp.overwrite,
        filename: imp.originalFilename,
        state: imp.state,
        total: imp.totalItems,
        processed: imp.processedItems,
        imported: imp.importedItems,
        failures,
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
  // Mastodon's paths for the two halves of the page.
  r.get("/settings/export", (event) => redirectTo(event, PAGE));
  r.get("/settings/import", (event) => redirectTo(event, PAGE));

  r.get("/settings/exports/:file", (event) => {
    const file = getRouterParam(event, "file") ?? "";
    const kind = file.replace(/\.csv$/, "");
    if (!file.endsWith(".csv") || !isExportKind(kind)) return messagePage(event, 404, "Not found", "There is no such export.");
    const browser = signedIn(event);
    if (!browser) return redirectTo(event, signInLocation(PAGE));
    return new Response(exportCsv(app, browser.account, kind), {
      status: 200,
      headers: {
        "content-type": "text/csv; charset=utf-8",
        "content-disposition": `attachment; filename="${EXPORT_FILENAMES[kind]}"`,
        "cache-control": "no-store",
        "x-content-type-options": "nosniff",
      },
    });
  });

  r.post("/settings/imports", async (event) => {
    const p = await readParams(event, { json: app.config.maxBodyBytes, multipart: MAX_IMPORT_BYTES + 64 * 1024 });
    if (!csrfValid(app, event, p.str("authenticity_token"))) return invalidCsrfPage(event);
    const browser = signedIn(event);
    if (!browser) return redirectTo(event, signInLocation(PAGE));
    const f = p.obj("form_import");
    const type = f?.str("type") ?? "";
    const mode = f?.str("mode") ?? "merge";
    const data = f?.file("data");
    if (!isImportType(type)) return page(event, browser, 422, "Choose what the file holds.");
    if (mode !== "merge" && mode !== "overwrite") return page(event, browser, 422, "Choose merge or overwrite.");
    if (!data) return page(event, browser, 422, "Choose a CSV file to upload.");
    try {
      createImport(app, browser.account, { type, overwrite: mode === "overwrite", filename: data.name, text: await data.text() });
    } catch (e) {
      if (e instanceof ApiError && e.status < 500) return page(event, browser, e.status, e.error);
      throw e;
    }
    return redirectTo(event, PAGE);
  });
}
