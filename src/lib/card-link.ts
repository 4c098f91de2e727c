// Which link of a post gets a preview card: the first `<a href>` of its HTML that is not a
// mention or hashtag (microformats `u-url`/`h-card`, `rel=tag`, classes `mention`/`hashtag`, or the URL of a mentioned
// account), not on this server, http(s), and short enough (Mastodon's FetchLinkCardService).
import { Parser } from "htmlparser2";

/** Mastodon's PreviewCard::URL_CHARACTER_LIMIT. */
export const CARD_URL_MAX = 2692;

/** A cheap test before parsing: does the HTML hold an http(s) link at all? */
export const mayHaveCardLink = (html: string) => html.includes('href="http');

export async function firstCardLink(html: string, opts: { localHost: string; mentionUrls: Set<string> }): Promise<string | null> {
  if (!mayHaveCardLink(html)) return null;
  const localHost = opts.localHost.toLowerCase();
  let found: string | null = null;
  const parser = new Parser(
    {
      onopentag(name, attrs) {
        if (found !== null || name !== "a" || !attrs.href) return;
        const rel = (attrs.rel ?? "").toLowerCase().split(/\s+/);
        // Our sanitiser rewrites a remote link's rel, so the `mention` / `hashtag` classes count too.
        if (rel.includes("tag") || /u-url|h-card|\b(mention|hashtag)\b/.test(attrs.class ?? "") || opts.mentionUrls.has(attrs.href)) return;
        let url: URL;
        try {
          url = new URL(attrs.href);
        } catch {
          return;
        }
        if (url.protocol !== "http:" && url.protocol !== "https:") return;
        if (url.hostname === "" || url.host.toLowerCase() === localHost) return;
        if (url.href.length > CARD_URL_MAX) return;
        found = url.href;
      },
    },
    { decodeEntities: true },
  );
  // In slices, stopping at the first link and yielding between slices: a long remote post
  // (up to 1 MB) never holds the event loop.
  for (let i = 0; i < html.length && found === null; i += 16_384) {
    if (i > 0) await new Promise((r) => setImmediate(r));
    parser.write(html.slice(i, i + 16_384));
  }
  parser.end();
  return found;
}
