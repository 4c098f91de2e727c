// A web link as trends count it and as GET /api/v1/timelines/link looks it up.

const MAX_URL = 2048;

/** http(s) only, without fragment; the host lower-cased (URL does that). Null when not a link. */
export function normalizeLink(href: string): { url: string; domain: string } | null {
  if (href.length > MAX_URL) return null;
  try {
    const u = new URL(href);
    if (u.protocol !== "http:" && u.protocol !== "https:") return null;
    u.hash = "";
    return { url: u.toString(), domain: u.hostname.replace(/^www\./, "") };
  } catch {
    return null;
  }
}
