// https://docs.joinmastodon.org/methods/instance/#extended_description, #privacy_policy,
// #terms_of_service, #languages, #translation_languages
import { getRouterParam } from "h3";
import type { App } from "../../../../app.ts";
import type { Router } from "../../../router.ts";
import { notFound } from "../../../../errors.ts";
import { cachePublicAlways } from "../../../headers.ts";
import {
  type TermsOfService,
  getExtendedDescription,
  getPrivacyPolicy,
  getTermsOfService,
  getTermsOfServiceOn,
} from "../../../../services/instance-pages.ts";
import { listLanguages } from "../../../../services/instance-languages.ts";

const iso = (ms: number) => new Date(ms).toISOString();

const toApiTerms = (t: TermsOfService) => ({
  effective_date: t.effectiveDate,
  effective: t.effective,
  content: t.content,
  succeeded_by: t.succeededBy,
});

export function registerInstancePageRoutes(app: App, r: Router): void {
  r.get("/api/v1/instance/extended_description", (event) => {
    cachePublicAlways(event);
    const d = getExtendedDescription(app);
    return { updated_at: d.updatedAt === null ? null : iso(d.updatedAt), content: d.content };
  });

  r.get("/api/v1/instance/privacy_policy", (event) => {
    cachePublicAlways(event);
    const p = getPrivacyPolicy(app);
    return { updated_at: iso(p.updatedAt), content: p.content };
  });

  r.get("/api/v1/instance/terms_of_service", (event) => {
    const t = getTermsOfService(app);
    if (!t) throw notFound();
    cachePublicAlways(event);
    return toApiTerms(t);
  });

  r.get("/api/v1/instance/terms_of_service/:date", (event) => {
    const t = getTermsOfServiceOn(app, getRouterParam(event, "date") ?? "");
    if (!t) throw notFound();
    cachePublicAlways(event);
    return toApiTerms(t);
  });

  r.get("/api/v1/instance/languages", (event) => {
    cachePublicAlways(event);
    return listLanguages();
  });

  // Translation is not offered, so no language pair is supported.
  r.get("/api/v1/instance/translation_languages", (event) => {
    cachePublicAlways(event);
    return {};
  });
}
