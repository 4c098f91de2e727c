// A link that trends with a preview card: a page with OpenGraph tags and an image on a real
// HTTP server, posted by five discoverable accounts, cards fetched, trends scored.
import sharp from "sharp";
import { refreshTrends } from "../../src/trends/refresh.ts";
import { type FakeRemote, startFakeRemote } from "./fake-remote.ts";
import type { TestServer, TestUser } from "./server.ts";

const HOUR = 3_600_000;

export interface TrendingLink {
  site: FakeRemote;
  /** The page's URL, as posted. */
  url: string;
  /** The five authors' posts linking it, oldest first. */
  posts: { id: string }[];
  authors: TestUser[];
}

export async function discoverableUser(s: TestServer, name: string): Promise<TestUser> {
  const u = await s.user(name);
  await s.api(u, "PATCH", "/api/v1/accounts/update_credentials", { discoverable: true });
  return u;
}

/** The app's clock at the 10th minute of the hour (posts and scores fall in one hour). */
export function fixClock(s: TestServer): void {
  const now = Date.now() - (Date.now() % HOUR) + 10 * 60_000;
  s.app.now = () => now;
}

export async function startTrendingLink(s: TestServer): Promise<TrendingLink> {
  fixClock(s);
  const site = await startFakeRemote();
  // A host name (the linkifier links no bare IP); *.localhost is loopback (RFC 6761).
  const o = site.origin.replace("127.0.0.1", "site.localhost");
  site.serveFile(
    "/articles/herons",
    `<!doctype html><html><head><title>x</title>
      <meta property="og:title" content="Herons &amp; egrets">
      <meta property="og:description" content="All about wading birds">
      <meta property="og:image" content="/img/heron.png">
      <meta property="og:site_name" content="Bird News">
      <meta property="og:author" content="Ada Heron">
    </head><body></body></html>`,
    "text/html; charset=utf-8",
  );
  const png = await sharp({ create: { width: 1200, height: 800, channels: 3, background: "#557799" } }).png().toBuffer();
  site.serveFile("/img/heron.png", png, "image/png");
  const url = `${o}/articles/herons`;
  const authors: TestUser[] = [];
  const posts: { id: string }[] = [];
  for (let i = 0; i < 5; i++) {
    const u = await discoverableUser(s, `linker${i}`);
    authors.push(u);
    posts.push(await s.api(u, "POST", "/api/v1/statuses", { status: `Read ${url} (${i})` }));
  }
  await s.drainJobs();
  refreshTrends(s.app);
  return { site, url, posts, authors };
}
