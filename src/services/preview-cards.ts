// Preview cards (issue 10 part 8), after Mastodon's FetchLinkCardService: the `card.fetch` job
// takes a post's first link (lib/card-link.ts), reuses the card of that URL when it is fresh,
// else fetches the page (safe fetch: HTML only, 1 MiB, 10 s), tries oEmbed discovery, then
// OpenGraph / Twitter card / JSON-LD (lib/link-details.ts), and stores one card per URL. Its
// image goes through the image worker (640x360 area, JPEG, blurhash). Embeds (`html`,
// `embed_url`) only come from EMBED_HOSTS, as a sanitised iframe.
import { writeFile } from "node:fs/promises";
import sanitizeHtml from "sanitize-html";
import type { App } from "../app.ts";
import { tx } from "../db/db.ts";
import { FetchError, safeFetch } from "../federation/net/safe-fetch.ts";
import type { Id } from "../lib/ids.ts";
import { firstCardLink, mayHaveCardLink } from "../lib/card-link.ts";
import { absoluteHttpUrl, extractLinkDetails, type LinkDetails } from "../lib/link-details.ts";
import { newMediaName } from "../media/files.ts";
import { ensureStagingDir, newStagedPath, removeStaged } from "../media/staging.ts";
import { mediaStore } from "../media/store.ts";
import { attachCard, type CardType, detachCard, findCardByUrl, type PreviewCard, statusHasCard, upsertCard } from "../storage/preview-cards.ts";
import { findStatusLinks } from "../storage/status-links.ts";
import { findStatusById, type Status } from "../storage/statuses.ts";
import type { ThumbnailResult } from "../workers/media-tasks.ts";

export const CARD_FETCH_JOB = "card.fetch";

/** Hosts whose players may be embedded (iframe `html`, `embed_url`); any other gets a plain link card. */
export const EMBED_HOSTS = [
  "www.youtube.com",
  "youtube.com",
  "www.youtube-nocookie.com",
  "player.vimeo.com",
  "www.dailymotion.com",
  "geo.dailymotion.com",
  "player.twitch.tv",
  "clips.twitch.tv",
  "w.soundcloud.com",
  "open.spotify.com",
  "bandcamp.com",
  "embed.music.apple.com",
  "embed.ted.com",
];

const PAGE_MAX_BYTES = 1024 * 1024;
const OEMBED_MAX_BYTES = 256 * 1024;
/** Mastodon's PreviewCard::LIMIT. */
const IMAGE_MAX_BYTES = 2 * 1024 * 1024;
const TIMEOUT_MS = 10_000;
/** A card older than this is fetched again when a new post links it (Mastodon: two weeks). */
const CARD_TTL_MS = 14 * 86_400_000;

/** Whether a post just saved needs the job: no content warning (the seed) and a link in it. */
export function wantsCard(s: { spoilerText: string; content: string }): boolean {
  return s.spoilerText === "" && mayHaveCardLink(s.content);
}

/**
 * Inside an edit's transaction, as Mastodon's UpdateStatusService: a changed text or a content
 * warning drops the card; without a content warning the link is crawled again (the card of an
 * unchanged link is reused).
 */
export function cardAfterEdit(app: App, statusId: Id, contentChanged: boolean, next: { spoilerText: string; content: string }): void {
  if (contentChanged || next.spoilerText !== "") detachCard(app.db, statusId);
  if (wantsCard(next)) app.jobs.enqueue(CARD_FETCH_JOB, { statusId }, { maxAttempts: 1 });
}

/** The URL a status's card would be for, or null. */
export async function cardUrlOf(app: App, status: Status): Promise<string | null> {
  if (status.reblogOfId || status.spoilerText !== "") return null;
  const mentions = findStatusLinks(app.db, [status.id]).mentions.get(status.id) ?? [];
  const mentionUrls = new Set<string>();
  for (const m of mentions) {
    mentionUrls.add(m.uri);
    if (m.url) mentionUrls.add(m.url);
  }
  return firstCardLink(status.content, { localHost: app.config.domain, mentionUrls });
}

export type CardOutcome = "attached" | "none";

/** The `card.fetch` job. Network failures and pages without a card end quietly, as Mastodon's (no retry). */
export async function fetchStatusCard(app: App, statusId: Id): Promise<CardOutcome> {
  const status = findStatusById(app.db, statusId);
  if (!status || statusHasCard(app.db, statusId)) return "none";
  const url = await cardUrlOf(app, status);
  if (!url) return "none";
  let card = findCardByUrl(app.db, url);
  if (!card || card.updatedAt <= app.now() - CARD_TTL_MS) {
    try {
      card = (await crawl(app, url)) ?? undefined;
    } catch (err) {
      if (!(err instanceof FetchError)) throw err;
      return "none"; // logged by safeFetch
    }
  }
  if (!card) return "none";
  const cardId = card.id;
  // The status may have been edited or deleted meanwhile: attach only to the text we read.
  const attached = tx(app.db, () => {
    const now = findStatusById(app.db, statusId);
    return !!now && now.content === status.content && now.spoilerText === "" && attachCard(app.db, statusId, cardId, url);
  });
  return attached ? "attached" : "none";
}

/** Fetches the page and builds its card; null when it has none (not HTML, no title nor embed). */
async function crawl(app: App, url: string): Promise<PreviewCard | null> {
  const res = await safeFetch(app, url, {
    headers: { accept: "text/html, application/xhtml+xml;q=0.9" },
    maxBytes: PAGE_MAX_BYTES,
    truncateBody: true,
    timeoutMs: TIMEOUT_MS,
  });
  const type = (res.headers.get("content-type") ?? "").split(";")[0].trim().toLowerCase();
  if (res.status !== 200 || (type !== "text/html" && type !== "application/xhtml+xml")) return null;
  const pageUrl = res.url;
  const details = await extractLinkDetails(decodeHtml(res.body, res.headers.get("content-type")), pageUrl);
  const draft = (await fromOEmbed(app, details)) ?? fromPage(details);
  if (!draft.title && !draft.html) return null;
  // Mastodon keys the card by the page's canonical (same-origin) URL after redirects.
  const key = details.canonicalUrl;
  const image = draft.imageUrl ? await storeCardImage(app, draft.imageUrl) : null;
  if (image && draft.type === "link") Object.assign(draft, { width: image.width, height: image.height });
  const { card, replacedImage } = tx(app.db, () =>
    upsertCard(app.db, {
      id: app.ids.next(),
      url: key,
      title: draft.title,
      description: draft.description,
      type: draft.type,
      authorName: draft.authorName,
      authorUrl: draft.authorUrl,
      providerName: draft.providerName,
      providerUrl: draft.providerUrl,
      html: draft.html,
      embedUrl: draft.embedUrl,
      width: draft.width,
      height: draft.height,
      imageFile: image?.file ?? null,
      imageDescription: details.imageDescription,
      blurhash: image?.blurhash ?? null,
      language: details.language,
      publishedAt: details.publishedAt,
      updatedAt: app.now(),
    }),
  );
  if (replacedImage) await mediaStore(app).remove([replacedImage]);
  return card;
}

interface CardDraft {
  type: CardType;
  title: string;
  description: string;
  authorName: string;
  authorUrl: string;
  providerName: string;
  providerUrl: string;
  html: string;
  embedUrl: string;
  width: number;
  height: number;
  imageUrl: string | null;
}

function fromPage(d: LinkDetails): CardDraft {
  const player = d.playerUrl ? embedIframe(d.playerUrl, d.playerWidth, d.playerHeight) : "";
  return {
    type: player ? "video" : "link",
    title: d.title,
    description: d.description,
    authorName: d.authorName,
    authorUrl: d.authorUrl,
    providerName: d.providerName,
    providerUrl: d.providerUrl,
    html: player,
    embedUrl: d.embedUrl && allowedEmbed(d.embedUrl) ? d.embedUrl : "",
    width: player ? d.playerWidth : 0,
    height: player ? d.playerHeight : 0,
    imageUrl: d.image,
  };
}

/**
 * The card from the page's oEmbed endpoint (discovered in the page), as Mastodon's: `link`
 * and `photo` as they come, `video` only with an iframe of an allowed provider, `rich` never
 * (providers rely on scripts): those fall back to the page's own tags. Title and description
 * the endpoint leaves out come from the page.
 */
async function fromOEmbed(app: App, d: LinkDetails): Promise<CardDraft | null> {
  if (!d.oembedUrl) return null;
  let embed: Record<string, unknown>;
  try {
    const res = await safeFetch(app, d.oembedUrl, { headers: { accept: "application/json" }, maxBytes: OEMBED_MAX_BYTES, timeoutMs: TIMEOUT_MS });
    if (res.status !== 200) return null;
    const parsed: unknown = JSON.parse(res.body.toString("utf8"));
    if (!parsed || typeof parsed !== "object" || Array.isArray(parsed)) return null;
    embed = parsed as Record<string, unknown>;
  } catch {
    return null;
  }
  const text = (k: string) => (typeof embed[k] === "string" ? (embed[k] as string).trim().slice(0, 2_000) : "");
  const size = (k: string) => {
    const n = Number(embed[k]);
    return Number.isInteger(n) && n > 0 && n < 100_000 ? n : 0;
  };
  const base = d.oembedUrl;
  const draft: CardDraft = {
    ...fromPage(d),
    type: "link",
    title: text("title") || d.title,
    authorName: text("author_name"),
    authorUrl: absoluteHttpUrl(text("author_url"), base) ?? "",
    providerName: text("provider_name") || d.providerName,
    providerUrl: absoluteHttpUrl(text("provider_url"), base) ?? "",
    html: "",
    embedUrl: "",
    width: 0,
    height: 0,
    imageUrl: absoluteHttpUrl(text("thumbnail_url"), base) ?? d.image,
  };
  switch (embed.type) {
    case "link":
      return draft;
    case "photo": {
      const photo = absoluteHttpUrl(text("url"), base);
      if (!photo) return null;
      return { ...draft, type: "photo", imageUrl: photo, embedUrl: allowedEmbed(photo) ? photo : "", width: size("width"), height: size("height") };
    }
    case "video": {
      const html = sanitizeEmbed(typeof embed.html === "string" ? embed.html : "");
      if (!html) return { ...draft, type: "link" };
      return { ...draft, type: "video", html, width: size("width"), height: size("height") };
    }
    default:
      return null;
  }
}

function allowedEmbed(url: string): boolean {
  try {
    const u = new URL(url);
    return u.protocol === "https:" && EMBED_HOSTS.includes(u.hostname.toLowerCase());
  } catch {
    return false;
  }
}

/** An oEmbed `html`: nothing but one iframe, from an allowed host, with plain attributes. */
function sanitizeEmbed(html: string): string {
  if (html.length > 64 * 1024) return "";
  const clean = sanitizeHtml(html, {
    allowedTags: ["iframe"],
    allowedAttributes: { iframe: ["src", "width", "height", "allowfullscreen", "frameborder", "scrolling", "title"] },
    allowedSchemes: ["https"],
    allowedIframeHostnames: EMBED_HOSTS,
    allowIframeRelativeUrls: false,
    nonTextTags: ["script", "style", "textarea", "noscript", "title"],
  }).trim();
  // An iframe whose src was refused keeps no src: no embed then.
  return /^<iframe [^>]*src="https:\/\/[^"]+"[^>]*><\/iframe>$/.test(clean) ? clean : "";
}

/** Mastodon's player iframe for `twitter:player`, when the player is an allowed host. */
function embedIframe(src: string, width: number, height: number): string {
  if (!allowedEmbed(src)) return "";
  return sanitizeEmbed(
    `<iframe src="${escapeAttr(src)}" width="${width}" height="${height}" allowfullscreen="true" frameborder="0" scrolling="no"></iframe>`,
  );
}

const escapeAttr = (s: string) => s.replace(/&/g, "&amp;").replace(/"/g, "&quot;").replace(/</g, "&lt;").replace(/>/g, "&gt;");

/** The page's text in its declared charset (Content-Type, else `<meta charset>`), UTF-8 by default. */
function decodeHtml(body: Buffer, contentType: string | null): string {
  const head = body.subarray(0, 2048).toString("latin1");
  const label =
    /charset\s*=\s*"?([\w-]+)/i.exec(contentType ?? "")?.[1] ?? /<meta[^>]+charset\s*=\s*["']?([\w-]+)/i.exec(head)?.[1] ?? "utf-8";
  try {
    return new TextDecoder(label).decode(body);
  } catch {
    return new TextDecoder("utf-8").decode(body);
  }
}

/** Fetches and processes a card image; null when it cannot be had (the card goes without). */
async function storeCardImage(app: App, url: string): Promise<{ file: string; width: number; height: number; blurhash: string } | null> {
  let body: Buffer;
  try {
    const res = await safeFetch(app, url, { headers: { accept: "image/*" }, maxBytes: IMAGE_MAX_BYTES, timeoutMs: TIMEOUT_MS });
    if (res.status !== 200 || res.body.length === 0) return null;
    body = res.body;
  } catch (err) {
    if (err instanceof FetchError) return null;
    throw err;
  }
  await ensureStagingDir(app);
  const input = newStagedPath(app);
  const prefix = `${input}-`;
  let result: ThumbnailResult | undefined;
  try {
    await writeFile(input, body);
    result = await app.pool.run<ThumbnailResult>("processMediaThumbnail", { input, outputPrefix: prefix });
    if (!result.ok) return null;
    const file = newMediaName("cards", "jpg");
    await mediaStore(app).putFile(file, result.thumbnail.path, "image/jpeg");
    return { file, width: result.thumbnail.width, height: result.thumbnail.height, blurhash: result.blurhash };
  } finally {
    await removeStaged([input, result?.ok ? result.thumbnail.path : undefined]);
  }
}
