import { esc } from "../layout.ts";

// The settings area's navigation: one entry per part (the lead merges the parts' lists).
export const SETTINGS_NAV: { path: string; label: string }[] = [{ path: "/settings/two_factor_authentication", label: "Two-factor authentication" }];

export function settingsNav(current: string): string {
  const items = SETTINGS_NAV.map((n) =>
    n.path === current ? `<li><a href="${esc(n.path)}" aria-current="page">${esc(n.label)}</a></li>` : `<li><a href="${esc(n.path)}">${esc(n.label)}</a></li>`,
  ).join("");
  return `<nav aria-label="Settings"><ul>${items}</ul></nav>`;
}
