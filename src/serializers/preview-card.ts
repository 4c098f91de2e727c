// https://docs.joinmastodon.org/entities/PreviewCard/ (entities-core.md "PreviewCard").
import type { App } from "../app.ts";
import { isoTime } from "../lib/iso-time.ts";
import { mediaUrl } from "../lib/urls.ts";
import type { PreviewCard } from "../storage/preview-cards.ts";

export interface ApiPreviewCard {
  url: string;
  title: string;
  description: string;
  language: string | null;
  type: string;
  author_name: string;
  author_url: string;
  provider_name: string;
  provider_url: string;
  html: string;
  width: number;
  height: number;
  image: string | null;
  image_description: string;
  embed_url: string;
  blurhash: string | null;
  published_at: string | null;
  authors: { name: string; url: string; account: null }[];
}

/**
 * Mastodon's PreviewCard. `authors` always holds the one author the card names (possibly
 * empty strings), as PreviewCard#authors; `account` stays null (roost does not resolve
 * `fediverse:creator`).
 */
export function toApiPreviewCard(app: App, c: PreviewCard): ApiPreviewCard {
  return {
    url: c.url,
    title: c.title,
    description: c.description,
    language: c.language,
    type: c.type,
    author_name: c.authorName,
    author_url: c.authorUrl,
    provider_name: c.providerName,
    provider_url: c.providerUrl,
    html: c.html,
    width: c.width,
    height: c.height,
    image: c.imageFile ? mediaUrl(app.baseUrl, c.imageFile) : null,
    image_description: c.imageDescription,
    embed_url: c.embedUrl,
    blurhash: c.blurhash,
    published_at: c.publishedAt === null ? null : isoTime(c.publishedAt),
    authors: [{ name: c.authorName, url: c.authorUrl, account: null }],
  };
}
