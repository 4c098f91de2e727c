import { esc } from "../layout.ts";

// The settings navigation: one list, in order. Each part of the settings area adds its entry here.
export interface SettingsNavEntry {
  href: string;
  label: string;
}

export const SETTINGS_NAV: SettingsNavEntry[] = [
  { href: "/settings/profile", label: "Profile" },
  { href: "/settings/preferences", label: "Preferences" },
  { href: "/settings/account", label: "Account" },
  { href: "/settings/two_factor_authentication", label: "Two-factor authentication" },
  { href: "/settings/sessions", label: "Sessions" },
  { href: "/settings/applications", label: "Authorized apps" },
  { href: "/settings/import-export", label: "Import and export" },
  { href: "/settings/archive", label: "Archive" },
  { href: "/settings/aliases", label: "Account aliases" },
  { href: "/settings/migration", label: "Move to a different account" },
  { href: "/settings/delete", label: "Delete account" },
];

/** The navigation alone, for pages drawn outside the settings shell (the two-factor pages). */
export function settingsNav(current: string): string {
  const items = SETTINGS_NAV.map((n) =>
    n.href === current ? `<li><a href="${esc(n.href)}" aria-current="page">${esc(n.label)}</a></li>` : `<li><a href="${esc(n.href)}">${esc(n.label)}</a></li>`,
  ).join("");
  return `<nav aria-label="Settings"><ul>${items}</ul></nav>`;
}
