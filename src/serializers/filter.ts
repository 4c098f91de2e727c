// https://docs.joinmastodon.org/entities/Filter/, FilterKeyword, FilterStatus, FilterResult and
// V1_Filter (entities-other.md "Filters").
import { isoTime } from "../lib/iso-time.ts";
import type { FilterMatch } from "../storage/filter-rules.ts";
import type { Filter, FilterKeyword, FilterStatus } from "../storage/filters.ts";

export interface ApiFilterKeyword {
  id: string;
  keyword: string;
  whole_word: boolean;
}

export interface ApiFilterStatus {
  id: string;
  status_id: string;
}

export interface ApiFilter {
  id: string;
  title: string;
  context: string[];
  expires_at: string | null;
  filter_action: string;
  keywords?: ApiFilterKeyword[];
  statuses?: ApiFilterStatus[];
}

export interface ApiFilterResult {
  filter: ApiFilter;
  keyword_matches: string[] | null;
  status_matches: string[] | null;
}

export interface ApiV1Filter {
  id: string;
  phrase: string;
  context: string[];
  whole_word: boolean;
  expires_at: string | null;
  irreversible: boolean;
}

export function toApiFilterKeyword(k: FilterKeyword): ApiFilterKeyword {
  return { id: k.id, keyword: k.keyword, whole_word: k.wholeWord };
}

export function toApiFilterStatus(s: FilterStatus): ApiFilterStatus {
  return { id: s.id, status_id: s.statusId };
}

/**
 * A filter. The filter endpoints send its keywords and statuses (Mastodon's `rules_requested`);
 * inside a FilterResult it goes without them.
 */
export function toApiFilter(f: Filter, rules?: { keywords: FilterKeyword[]; statuses: FilterStatus[] }): ApiFilter {
  const out: ApiFilter = {
    id: f.id,
    title: f.title,
    context: f.context,
    expires_at: f.expiresAt === null ? null : isoTime(f.expiresAt),
    filter_action: f.action,
  };
  if (rules) {
    out.keywords = rules.keywords.map(toApiFilterKeyword);
    out.statuses = rules.statuses.map(toApiFilterStatus);
  }
  return out;
}

/** A status's `filtered` entry. */
export function toApiFilterResult(m: FilterMatch): ApiFilterResult {
  return { filter: toApiFilter(m.filter), keyword_matches: m.keywordMatches, status_matches: m.statusMatches };
}

/** The v1 view of one keyword: its filter's context, expiry and action (hide ↔ irreversible). */
export function toApiV1Filter(k: FilterKeyword, f: Filter): ApiV1Filter {
  return {
    id: k.id,
    phrase: k.keyword,
    context: f.context,
    whole_word: k.wholeWord,
    expires_at: f.expiresAt === null ? null : isoTime(f.expiresAt),
    irreversible: f.action === "hide",
  };
}
