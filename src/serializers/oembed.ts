// oEmbed 1.0 "rich" response for a local post (endpoints-instance.md; Mastodon's OEmbedSerializer).
import type { App } from "../app.ts";
import { escapeHtml } from "../lib/text-html.ts";
import { localStatusUrl } from "../lib/urls.ts";
import type { Account } from "../storage/accounts.ts";
import type { Status } from "../storage/statuses.ts";

const DEFAULT_WIDTH = 400;

/**
 * Mastodon's fields. The `html` is its blockquote linking to the post (without Mastodon's
 * embed.js, which roost does not serve: the quote is a plain link card wherever it is pasted).
 */
export function toOEmbed(app: App, status: Status, account: Account, size: { width?: number; height?: number }) {
  const postUrl = status.url ?? localStatusUrl(app.baseUrl, account.username, status.id);
  const html =
    `<blockquote class="mastodon-embed" style="max-width: 540px; min-width: 270px; margin: 0; border: 1px solid #C9C4DA; border-radius: 8px;">` +
    `<a href="${escapeHtml(postUrl)}" target="_blank" style="display: block; padding: 24px; text-decoration: none;">` +
    `<div>Post by @${escapeHtml(account.username)}@${escapeHtml(app.config.domain)}</div><div>View on ${escapeHtml(app.config.domain)}</div>` +
    `</a></blockquote>`;
  return {
    type: "rich",
    version: "1.0",
    author_name: account.displayName || account.username,
    author_url: `${app.baseUrl}/@${account.username}`,
    provider_name: app.config.domain,
    provider_url: `${app.baseUrl}/`,
    cache_age: 86_400,
    html,
    width: size.width ?? DEFAULT_WIDTH,
    height: size.height ?? null,
  };
}
