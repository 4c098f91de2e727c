import type { App } from "../app.ts";
import { Validation } from "../lib/validation.ts";
import { getSetting, setSetting, deleteSetting } from "../storage/settings.ts";
import { renderMarkdown } from "./instance-markdown.ts";

// Admin-written instance texts, kept in the settings table as Markdown and rendered to HTML
// when read: extended description ("about" page), privacy policy, terms of service and the
// message shown while registrations are closed.

const EXTENDED_DESCRIPTION = "extended_description";
const PRIVACY_POLICY = "privacy_policy";
const TERMS_OF_SERVICE = "terms_of_service";
const CLOSED_REGISTRATIONS_MESSAGE = "closed_registrations_message";

interface StoredText {
  text: string;
  updatedAt: number;
}
interface StoredTerms extends StoredText {
  effectiveDate: string; // YYYY-MM-DD
}

export interface InstancePage {
  updatedAt: number | null;
  /** HTML. */
  content: string;
}

export interface TermsOfService {
  effectiveDate: string;
  effective: boolean;
  content: string;
  succeededBy: string | null;
}

export function getExtendedDescription(app: App): InstancePage {
  const s = getSetting<StoredText>(app.db, EXTENDED_DESCRIPTION);
  if (!s || typeof s.text !== "string") return { updatedAt: null, content: "" };
  return { updatedAt: s.updatedAt ?? null, content: renderMarkdown(s.text) };
}

/** Sets the extended description (Markdown); an empty text clears it. */
export function setExtendedDescription(app: App, text: string): void {
  if (text.trim() === "") deleteSetting(app.db, EXTENDED_DESCRIPTION);
  else setSetting(app.db, EXTENDED_DESCRIPTION, { text, updatedAt: app.now() } satisfies StoredText);
}

// Shown until the admin writes their own, as Mastodon ships a default policy.
const DEFAULT_PRIVACY_UPDATED_AT = Date.UTC(2025, 0, 1);
function defaultPrivacyPolicy(app: App): string {
  return [
    `# Privacy policy of ${app.config.domain}`,
    "This server stores what you give it to run your account: your e-mail address, a hashed password, your profile, your posts and media, and who you follow.",
    "Public and unlisted posts, your profile and your follows are sent to the other servers of people who follow you or whom you mention, as the ActivityPub protocol requires. Followers-only posts go only to the servers of your followers; direct messages only to the servers of the people mentioned.",
    "The server keeps the IP address of your sign-ins and of your recent requests for security. Deleting your account deletes your data here and asks other servers to delete their copies.",
    app.config.contactEmail ? `Questions: ${app.config.contactEmail}` : "",
  ]
    .filter(Boolean)
    .join("\n\n");
}

export function getPrivacyPolicy(app: App): InstancePage & { updatedAt: number } {
  const s = getSetting<StoredText>(app.db, PRIVACY_POLICY);
  if (s && typeof s.text === "string" && s.text.trim() !== "") {
    return { updatedAt: s.updatedAt, content: renderMarkdown(s.text) };
  }
  return { updatedAt: DEFAULT_PRIVACY_UPDATED_AT, content: renderMarkdown(defaultPrivacyPolicy(app)) };
}

/** Replaces the privacy policy (Markdown); an empty text restores the default. */
export function setPrivacyPolicy(app: App, text: string): void {
  if (text.trim() === "") deleteSetting(app.db, PRIVACY_POLICY);
  else setSetting(app.db, PRIVACY_POLICY, { text, updatedAt: app.now() } satisfies StoredText);
}

const today = (app: App) => new Date(app.now()).toISOString().slice(0, 10);
const DATE_RE = /^\d{4}-\d{2}-\d{2}$/;

/** The terms of service in effect (or the next published ones); undefined when none were published. */
export function getTermsOfService(app: App): TermsOfService | undefined {
  const s = getSetting<StoredTerms>(app.db, TERMS_OF_SERVICE);
  if (!s || typeof s.text !== "string" || typeof s.effectiveDate !== "string") return undefined;
  return {
    effectiveDate: s.effectiveDate,
    effective: s.effectiveDate <= today(app),
    content: renderMarkdown(s.text),
    succeededBy: null,
  };
}

/** The terms effective on `date` (YYYY-MM-DD); roost keeps one version, so only its own date matches. */
export function getTermsOfServiceOn(app: App, date: string): TermsOfService | undefined {
  const tos = getTermsOfService(app);
  return tos && DATE_RE.test(date) && tos.effectiveDate === date ? tos : undefined;
}

/** Publishes terms of service (Markdown) effective on `effectiveDate` (default: today). */
export function setTermsOfService(app: App, input: { text: string; effectiveDate?: string }): void {
  const effectiveDate = input.effectiveDate ?? today(app);
  const v = new Validation();
  if ((input.text ?? "").trim() === "") v.add("text", "ERR_BLANK", "can't be blank");
  if (!DATE_RE.test(effectiveDate) || Number.isNaN(Date.parse(effectiveDate)))
    v.add("effective_date", "ERR_INVALID", "is invalid");
  v.throwIfAny();
  setSetting(app.db, TERMS_OF_SERVICE, { text: input.text, effectiveDate, updatedAt: app.now() } satisfies StoredTerms);
}

/** HTML shown in the instance `registrations.message` while sign-ups are closed, or null. */
export function getClosedRegistrationsMessage(app: App): string | null {
  const s = getSetting<{ text: string }>(app.db, CLOSED_REGISTRATIONS_MESSAGE);
  return s && typeof s.text === "string" && s.text.trim() !== "" ? renderMarkdown(s.text) : null;
}

export function setClosedRegistrationsMessage(app: App, text: string): void {
  if (text.trim() === "") deleteSetting(app.db, CLOSED_REGISTRATIONS_MESSAGE);
  else setSetting(app.db, CLOSED_REGISTRATIONS_MESSAGE, { text });
}
