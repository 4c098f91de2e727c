import { esc } from "../layout.ts";

/** The settings area's navigation: one list every settings page shows (each part adds its entry). */
export const SETTINGS_NAV: { href: string; label: string }[] = [
  { href: "/settings/import-export", label: "Import and export" },
  { href: "/settings/archive", label: "Archive" },
];

export function settingsNav(current: string): string {
  const items = SETTINGS_NAV.map((n) =>
    n.href === current ? `<li><a href="${esc(n.href)}" aria-current="page">${esc(n.label)}</a></li>` : `<li><a href="${esc(n.href)}">${esc(n.label)}</a></li>`,
  ).join("");
  return `<nav aria-label="Settings"><ul>${items}</ul></nav>`;
}
