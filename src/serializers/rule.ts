import type { Rule } from "../storage/rules.ts";

export interface ApiRule {
  id: string;
  text: string;
  hint: string;
  translations: Record<string, { text: string; hint: string }>;
}

/** Mastodon's Rule entity (roost keeps no translations yet: `{}`). */
export function toApiRule(rule: Rule): ApiRule {
  return { id: rule.id, text: rule.text, hint: rule.hint, translations: {} };
}
