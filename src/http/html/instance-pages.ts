import { esc, layout } from "./layout.ts";

// The instance's public pages (/about, /privacy-policy, /terms-of-service): what
// configuration.urls in /api/v2/instance points apps and browsers at. Markdown-rendered texts
// come in as HTML already escaped by the renderer.

export interface AboutPageInput {
  nonce: string;
  title: string;
  domain: string;
  description: string;
  extendedHtml: string;
  rules: { text: string; hint: string }[];
  contactEmail: string;
  registrations: "open" | "approval" | "closed";
}

const REGISTRATIONS = {
  open: "Anyone can sign up.",
  approval: "Sign-ups are reviewed by the moderators.",
  closed: "Sign-ups are closed.",
};

export function aboutPage(o: AboutPageInput): string {
  const rules = o.rules.length
    ? `<h2>Rules</h2><ol>${o.rules.map((r) => `<li>${esc(r.text)}${r.hint ? `<br><span class="muted">${esc(r.hint)}</span>` : ""}</li>`).join("")}</ol>`
    : "";
  const contact = o.contactEmail ? `<p class="muted">Contact: <a href="mailto:${esc(o.contactEmail)}">${esc(o.contactEmail)}</a></p>` : "";
  const body = `<h1>${esc(o.title)}</h1>
<p>${esc(o.description)}</p>
${o.extendedHtml ? `<section>${o.extendedHtml}</section>` : ""}
${rules}
<p class="muted">${esc(o.domain)} · ${esc(REGISTRATIONS[o.registrations])} · <a href="/privacy-policy">Privacy policy</a></p>
${contact}`;
  return layout({ title: `About ${o.title}`, body, nonce: o.nonce });
}

/** A page holding one Markdown-rendered text (privacy policy, terms of service). */
export function documentPage(o: { nonce: string; heading: string; html: string; updated: string | null }): string {
  const updated = o.updated ? `<p class="muted">Last updated ${esc(o.updated)}</p>` : "";
  return layout({ title: o.heading, body: `<h1>${esc(o.heading)}</h1>${updated}${o.html}`, nonce: o.nonce });
}
