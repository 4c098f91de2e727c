// What a linked page says about itself, for its preview card (issue 10 part 8): OpenGraph and
// Twitter card meta tags, <title>, JSON-LD (NewsArticle / WebPage), canonical link and oEmbed
// discovery, read with a real HTML parser (htmlparser2), as Mastodon's LinkDetailsExtractor.
import { Parser } from "htmlparser2";

export interface LinkDetails {
  title: string;
  description: string;
  /** Absolute http(s) URLs, resolved against the page. */
  image: string | null;
  imageDescription: string;
  /** `twitter:player`: the page offers an embeddable player (a `video` card). */
  playerUrl: string | null;
  playerWidth: number;
  playerHeight: number;
  /** `twitter:player:stream`. */
  embedUrl: string | null;
  providerName: string;
  providerUrl: string;
  authorName: string;
  authorUrl: string;
  /** The same-origin canonical URL (`<link rel=canonical>` or `og:url`), else the page's own. */
  canonicalUrl: string;
  language: string | null;
  publishedAt: number | null;
  /** `<link rel=alternate type=application/json+oembed>`. */
  oembedUrl: string | null;
}

/** Longest title and description kept (a card is a preview; pages may carry whole articles). */
const MAX_TITLE = 1_000;
const MAX_DESCRIPTION = 2_000;
const LD_TYPES = new Set(["NewsArticle", "WebPage"]);

interface Raw {
  meta: Map<string, string>;
  links: Map<string, string>;
  oembed: string | null;
  title: string | null;
  lang: string | null;
  ld: string[];
}

/**
 * Reads the tags a card needs; the first of each name wins, as Mastodon's XPath `pick`. In
 * slices, yielding between them: a 1 MB page never holds the event loop.
 */
async function scan(html: string): Promise<Raw> {
  const raw: Raw = { meta: new Map(), links: new Map(), oembed: null, title: null, lang: null, ld: [] };
  let inTitle = false;
  let title = "";
  let inLd = false;
  let ld = "";
  const parser = new Parser(
    {
      onopentag(name, attrs) {
        if (name === "meta") {
          const key = (attrs.property ?? attrs.name ?? "").trim().toLowerCase();
          if (key && attrs.content !== undefined && !raw.meta.has(key)) raw.meta.set(key, attrs.content);
        } else if (name === "link" && attrs.href) {
          const rel = (attrs.rel ?? "").trim().toLowerCase();
          const type = (attrs.type ?? "").trim().toLowerCase();
          if (type === "application/json+oembed" && raw.oembed === null) raw.oembed = attrs.href;
          else if (rel && !raw.links.has(rel)) raw.links.set(rel, attrs.href);
        } else if (name === "title" && raw.title === null) {
          inTitle = true;
        } else if (name === "html" && attrs.lang && raw.lang === null) {
          raw.lang = attrs.lang;
        } else if (name === "script" && (attrs.type ?? "").trim().toLowerCase() === "application/ld+json") {
          inLd = true;
          ld = "";
        }
      },
      ontext(text) {
        if (inTitle) title += text;
        else if (inLd && ld.length < 200_000) ld += text;
      },
      onclosetag(name) {
        if (name === "title" && inTitle) {
          inTitle = false;
          raw.title = title;
        } else if (name === "script" && inLd) {
          inLd = false;
          raw.ld.push(ld);
        }
      },
    },
    { decodeEntities: true, lowerCaseTags: true, lowerCaseAttributeNames: true },
  );
  for (let i = 0; i < html.length; i += 16_384) {
    if (i > 0) await new Promise((r) => setImmediate(r));
    parser.write(html.slice(i, i + 16_384));
  }
  parser.end();
  return raw;
}

type Json = Record<string, unknown>;
const first = (v: unknown): unknown => (Array.isArray(v) ? v[0] : v);
const str = (v: unknown): string | null => (typeof v === "string" && v.trim() !== "" ? v.trim() : null);

/** The first JSON-LD object of a supported type (some pages wrap it in CDATA comments). */
function structuredData(blocks: string[]): Json | null {
  for (const block of blocks) {
    const text = block.replace(/^\s*(\/\*\s*<!\[CDATA\[\s*\*\/|\/\/\s*<!\[CDATA\[|\/\*\s*\]\]>\s*\*\/|\/\/\s*\]\]>)\s*$/gm, "").trim();
    if (!text) continue;
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      continue;
    }
    for (const obj of Array.isArray(parsed) ? parsed : [parsed]) {
      if (obj && typeof obj === "object" && LD_TYPES.has((obj as Json)["@type"] as string)) return obj as Json;
    }
  }
  return null;
}

/** An absolute http(s) URL from `raw` relative to `base`, or null. */
export function absoluteHttpUrl(raw: string | null | undefined, base: string, sameOriginOnly = false): string | null {
  if (!raw || raw.trim() === "" || raw === "null") return null;
  try {
    const url = new URL(raw.trim(), base);
    if (url.protocol !== "http:" && url.protocol !== "https:") return null;
    if (sameOriginOnly && url.host !== new URL(base).host) return null;
    return url.href;
  } catch {
    return null;
  }
}

/** `en-GB`, `en_US` → `en`; null unless it looks like a language code. */
function languageOf(raw: string | null): string | null {
  const code = raw?.trim().split(/[-_]/)[0]?.toLowerCase() ?? "";
  return /^[a-z]{2,3}$/.test(code) ? code : null;
}

const clip = (s: string | null, max: number) => (s ?? "").replace(/\s+/g, " ").trim().slice(0, max);
const int = (s: string | undefined) => {
  const n = Number.parseInt(s ?? "", 10);
  return Number.isFinite(n) && n > 0 && n < 100_000 ? n : 0;
};

export async function extractLinkDetails(html: string, pageUrl: string): Promise<LinkDetails> {
  const raw = await scan(html);
  const tag = (name: string) => raw.meta.get(name) ?? null;
  const ld = structuredData(raw.ld);
  const author = ld ? (first(ld.author) as Json | undefined) : undefined;
  const publisher = ld ? (first(ld.publisher) as Json | undefined) : undefined;
  const image = ld ? first(ld.image) : undefined;
  const ldImage = image && typeof image === "object" ? str((image as Json).url) : str(image);
  const published = str(ld?.datePublished) ?? tag("article:published_time");
  const publishedAt = published ? Date.parse(published) : NaN;
  const site = tag("og:site");
  return {
    title: clip(str(ld?.headline) ?? tag("og:title") ?? raw.title, MAX_TITLE),
    description: clip(str(ld?.description) ?? tag("og:description") ?? tag("description"), MAX_DESCRIPTION),
    image: absoluteHttpUrl(tag("og:image") ?? tag("twitter:image") ?? ldImage, pageUrl),
    imageDescription: clip(tag("og:image:alt") ?? tag("twitter:image:alt"), MAX_DESCRIPTION),
    playerUrl: absoluteHttpUrl(tag("twitter:player"), pageUrl),
    playerWidth: int(tag("twitter:player:width") ?? undefined),
    playerHeight: int(tag("twitter:player:height") ?? undefined),
    embedUrl: absoluteHttpUrl(tag("twitter:player:stream"), pageUrl),
    providerName: clip(str(publisher?.name) ?? tag("og:site_name"), MAX_TITLE),
    providerUrl: absoluteHttpUrl(site && !/^https?:\/\//i.test(site) ? `http://${site}` : site, pageUrl) ?? "",
    authorName: clip(str(author?.name) ?? tag("og:author") ?? tag("og:author:username"), MAX_TITLE),
    authorUrl: absoluteHttpUrl(str(author?.url), pageUrl) ?? "",
    canonicalUrl: absoluteHttpUrl(raw.links.get("canonical") ?? tag("og:url"), pageUrl, true) ?? pageUrl,
    language: languageOf(str(ld?.inLanguage) ?? tag("og:locale") ?? raw.lang),
    publishedAt: Number.isFinite(publishedAt) ? publishedAt : null,
    oembedUrl: absoluteHttpUrl(raw.oembed, pageUrl),
  };
}
