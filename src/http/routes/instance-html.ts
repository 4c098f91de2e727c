// The pages behind /api/v2/instance `configuration.urls` (about, privacy_policy,
// terms_of_service), served to browsers and linked from apps.
import type { App } from "../../app.ts";
import type { Router } from "../router.ts";
import { aboutPage, documentPage } from "../html/instance-pages.ts";
import { htmlPage, newNonce, redirectTo } from "../html/layout.ts";
import { getExtendedDescription, getPrivacyPolicy, getTermsOfService } from "../../services/instance-pages.ts";
import { getRules } from "../../services/rules.ts";
import { notFound } from "../../errors.ts";

const day = (ms: number) => new Date(ms).toISOString().slice(0, 10);

export function registerInstanceHtmlRoutes(app: App, r: Router): void {
  r.get("/about", (event) => {
    const nonce = newNonce();
    const c = app.config;
    const html = aboutPage({
      nonce,
      title: c.title,
      domain: c.domain,
      description: c.description,
      extendedHtml: getExtendedDescription(app).content,
      rules: getRules(app),
      contactEmail: c.contactEmail,
      registrations: c.registrations,
    });
    return htmlPage(event, 200, html, nonce);
  });
  // The instance actor's profile page in WebFinger (Mastodon's /about/more?instance_actor=true).
  r.get("/about/more", (event) => redirectTo(event, "/about"));

  r.get("/privacy-policy", (event) => {
    const nonce = newNonce();
    const p = getPrivacyPolicy(app);
    return htmlPage(event, 200, documentPage({ nonce, heading: "Privacy policy", html: p.content, updated: day(p.updatedAt) }), nonce);
  });

  r.get("/terms-of-service", (event) => {
    const tos = getTermsOfService(app);
    if (!tos) throw notFound("Not Found");
    const nonce = newNonce();
    return htmlPage(event, 200, documentPage({ nonce, heading: "Terms of service", html: tos.content, updated: tos.effectiveDate }), nonce);
  });
}
