// Remote HTML → Mastodon's allowed subset (sanitization.md §1), with sanitize-html.

/**
 * Sanitises remote HTML (status content, bios, profile field values) to Mastodon's strict
 * allow-list: kept elements and attributes, class filtering, forced rel/target on links,
 * unsafe link schemes unwrapped, h1-h6 → <p><strong>, script/style/... dropped with their
 * content, other elements unwrapped (block ones replaced by spaces).
 */
export function sanitizeRemoteHtml(_html: string): string {
  throw new Error("sanitizeRemoteHtml: not implemented");
}

/** Plain text of remote HTML (sanitization.md §1.4): newlines after <br> and </p>. */
export function remoteHtmlToText(_html: string): string {
  throw new Error("remoteHtmlToText: not implemented");
}
