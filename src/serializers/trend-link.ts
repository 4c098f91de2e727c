// Trends::Link (a PreviewCard with seven days of history) and the admin's Link and
// PreviewCardProvider. The page fields (title, description, image, author, provider, blurhash,
// size) come from the link's preview card (storage/preview-cards.ts); `url` stays the link as
// posted, which GET /api/v1/timelines/link takes. A link whose card was never fetched (the
// page had none, or the fetch failed) is shown by its URL, with its site as provider.
import type { App } from "../app.ts";
import { findCardsByIds } from "../storage/preview-cards.ts";
import { type TrendLink, type TrendPublisher, trendDailyUses } from "../storage/trends.ts";
import { toApiPreviewCard } from "./preview-card.ts";

const DAY = 86_400_000;

export type ApiTrendLink = Record<string, unknown> & { url: string; history: { day: string; accounts: string; uses: string }[] };

export function toApiTrendLinks(app: App, links: TrendLink[]): ApiTrendLink[] {
  const now = app.now();
  const today = now - (now % DAY);
  const uses = trendDailyUses(app.db, "link", links.map((l) => l.id), today - 6 * DAY);
  const cards = findCardsByIds(app.db, links.flatMap((l) => (l.cardId ? [l.cardId] : [])));
  return links.map((l) => {
    const byDay = uses.get(l.id);
    const history = Array.from({ length: 7 }, (_, i) => {
      const day = today - i * DAY;
      const u = byDay?.get(day);
      return { day: String(day / 1000), accounts: String(u?.accounts ?? 0), uses: String(u?.uses ?? 0) };
    });
    const card = l.cardId ? cards.get(l.cardId) : undefined;
    if (card) return { ...toApiPreviewCard(app, card), url: l.url, history };
    return {
      url: l.url,
      title: l.url,
      description: "",
      language: null,
      type: "link",
      author_name: "",
      author_url: "",
      provider_name: l.domain,
      provider_url: "",
      html: "",
      width: 0,
      height: 0,
      image: null,
      image_description: "",
      embed_url: "",
      blurhash: null,
      published_at: null,
      authors: [],
      history,
    };
  });
}

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

/** PreviewCardProvider: ids are numbers in Mastodon's admin trend entities. */
export function toApiPublisher(p: TrendPublisher) {
  return {
    id: Number(p.id),
    domain: p.domain,
    trendable: p.trendable === true,
    reviewed_at: iso(p.reviewedAt),
    requested_review_at: iso(p.requestedReviewAt),
    requires_review: p.trendable === null,
  };
}
