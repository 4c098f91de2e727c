// https://docs.joinmastodon.org/entities/Suggestion/ (entities-core.md "Suggestion"), as
// Mastodon 4.3's REST::SuggestionSerializer: `sources`, and the legacy `source` derived from
// the first of them.
import type { App } from "../app.ts";
import type { Suggestion, SuggestionSource } from "../services/suggestions.ts";
import { type ApiAccount, toApiAccounts } from "./account.ts";

const LEGACY_SOURCE: Record<SuggestionSource, "staff" | "global" | "past_interactions"> = {
  featured: "staff",
  most_followed: "global",
  most_interactions: "global",
  similar_to_recently_followed: "past_interactions",
  friends_of_friends: "past_interactions",
};

export interface ApiSuggestion {
  source: "staff" | "global" | "past_interactions";
  sources: SuggestionSource[];
  account: ApiAccount;
}

export function toApiSuggestions(app: App, list: Suggestion[]): ApiSuggestion[] {
  const accounts = toApiAccounts(app, list.map((s) => s.account));
  return list.map((s, i) => ({ source: LEGACY_SOURCE[s.sources[0]], sources: s.sources, account: accounts[i] }));
}
