// The settings navigation: one list, in order. Each part of the settings area adds its entry here.
export interface SettingsNavEntry {
  href: string;
  label: string;
}

export const SETTINGS_NAV: SettingsNavEntry[] = [
  { href: "/settings/profile", label: "Profile" },
  { href: "/settings/preferences", label: "Preferences" },
  { href: "/settings/account", label: "Account" },
  { href: "/settings/sessions", label: "Sessions" },
  { href: "/settings/applications", label: "Authorized apps" },
];
