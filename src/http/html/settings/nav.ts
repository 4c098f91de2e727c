import { esc } from "../layout.ts";

// The settings area's navigation: one list, each part of the settings adds its entry.

export const SETTINGS_NAV: { href: string; label: string }[] = [
  { href: "/settings/aliases", label: "Account aliases" },
  { href: "/settings/migration", label: "Move to a different account" },
  { href: "/settings/delete", label: "Delete account" },
];

export function settingsNav(current: string): string {
  const items = SETTINGS_NAV.map((e) => `<li>${e.href === current ? `<strong aria-current="page">${esc(e.label)}</strong>` : `<a href="${esc(e.href)}">${esc(e.label)}</a>`}</li>`);
  return `<nav aria-label="Settings"><ul>${items.join("")}</ul></nav>`;
}
