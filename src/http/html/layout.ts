import type { H3Event } from "h3";
import { randomToken } from "../../lib/crypto.ts";

/** HTML-escapes any interpolated value (text and attribute positions alike). */
export function esc(v: unknown): string {
  return String(v ?? "").replace(/[&<>"'`]/g, (c) => `&#${c.charCodeAt(0)};`);
}

export function newNonce(): string {
  return randomToken(16);
}

const STYLE = `
body{font:16px/1.5 system-ui,sans-serif;margin:0;background:#f4f4f8;color:#1c1c24}
main{max-width:28rem;margin:3rem auto;padding:1.5rem;background:#fff;border-radius:8px;box-shadow:0 1px 3px #0002}
h1{font-size:1.35rem;margin:0 0 1rem}
label{display:block;font-weight:600;margin:.75rem 0 .25rem}
input[type=text],input[type=email],input[type=password]{width:100%;box-sizing:border-box;padding:.5rem;font:inherit;border:1px solid #888;border-radius:4px}
button{font:inherit;padding:.5rem 1rem;border-radius:4px;border:1px solid #3a3ab0;background:#4646d8;color:#fff;cursor:pointer}
button.secondary{background:#fff;color:#3a3ab0}
button.link{background:none;border:none;color:#3a3ab0;padding:0;text-decoration:underline}
.actions{display:flex;gap:.75rem;margin-top:1.25rem;flex-wrap:wrap}
.error{background:#fde8e8;border:1px solid #d33;padding:.5rem .75rem;border-radius:4px}
.muted{color:#555;font-size:.9rem}
ul.perms{padding-left:1.2rem}
code,.code{font-family:ui-monospace,monospace}
`;

/** The page shell: a nonce-guarded inline style (and script when a page needs one); `style` adds a page's own rules. */
export function layout(o: { title: string; body: string; nonce: string; script?: string; style?: string }): string {
  const script = o.script ? `<script nonce="${esc(o.nonce)}">${o.script}</script>` : "";
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer"><title>${esc(o.title)}</title>
<style nonce="${esc(o.nonce)}">${STYLE}${o.style ?? ""}</style></head>
<body><main>${o.body}</main>${script}</body></html>`;
}

/**
 * Security headers of every HTML page. `form-action` is deliberately absent: the consent form
 * (and the sign-in form that leads back to it) ends in a redirect to the client's own scheme,
 * which browsers would block under form-action (Mastodon disables it on these pages too).
 */
function pageHeaders(nonce: string): Record<string, string> {
  return {
    "content-type": "text/html; charset=utf-8",
    "content-security-policy": `default-src 'none'; style-src 'nonce-${nonce}'; script-src 'nonce-${nonce}'; img-src 'self' https: data:; base-uri 'none'; frame-ancestors 'none'`,
    "x-frame-options": "DENY",
    "x-content-type-options": "nosniff",
    "referrer-policy": "no-referrer",
    "cache-control": "no-store",
    pragma: "no-cache",
  };
}

/**
 * Builds the response. Headers also go on event.res.headers because h3 lets those override a
 * returned Response (the server middleware's defaults would win otherwise); cookies only go on
 * the Response so they are not sent twice.
 */
function respond(event: H3Event, status: number, body: string | null, headers: Record<string, string>, cookies: string[]): Response {
  const h = new Headers(headers);
  for (const [k, v] of Object.entries(headers)) event.res.headers.set(k, v);
  for (const c of cookies) h.append("set-cookie", c);
  return new Response(body, { status, headers: h });
}

export function htmlPage(event: H3Event, status: number, html: string, nonce: string, cookies: string[] = []): Response {
  return respond(event, status, html, pageHeaders(nonce), cookies);
}

export function redirectTo(event: H3Event, location: string, cookies: string[] = []): Response {
  return respond(event, 302, null, { location, "cache-control": "no-store", pragma: "no-cache" }, cookies);
}

/** A page with a heading and a message (errors such as an invalid CSRF token). */
export function messagePage(event: H3Event, status: number, title: string, message: string): Response {
  const nonce = newNonce();
  const body = `<h1>${esc(title)}</h1><p role="alert">${esc(message)}</p>`;
  return htmlPage(event, status, layout({ title, body, nonce }), nonce);
}
