// The small server-rendered pages browsers get on /@alice and /@alice/:id (the JSON of the
// same URLs goes to peers). Everything interpolated is escaped, except bios, field values and
// post contents: those are the HTML roost rendered and sanitised itself when they were saved.
import type { H3Event } from "h3";
import type { App } from "../../app.ts";
import { esc, htmlPage, newNonce } from "../../http/html/layout.ts";
import type { Account } from "../../storage/accounts.ts";
import type { Status } from "../../storage/statuses.ts";
import { storedImageUrl } from "../serializers/actor.ts";

const STYLE = `
body{font:16px/1.5 system-ui,sans-serif;margin:0;background:#f4f4f8;color:#1c1c24}
main{max-width:40rem;margin:2rem auto;padding:1.5rem;background:#fff;border-radius:8px;box-shadow:0 1px 3px #0002}
header{display:flex;gap:1rem;align-items:center;margin-bottom:1rem}
header img{width:64px;height:64px;border-radius:8px;object-fit:cover}
h1{font-size:1.35rem;margin:0}
.handle,.meta{color:#555;font-size:.9rem;margin:0}
dl.fields{display:grid;grid-template-columns:max-content 1fr;gap:.25rem 1rem}
dl.fields dt{font-weight:600}
article{border-top:1px solid #ddd;padding:.75rem 0}
.invisible{display:none}
.ellipsis::after{content:"…"}
`;

const handleOf = (app: App, a: Account) => `@${a.username}@${app.config.domain}`;

function shell(o: { title: string; alternate: string; body: string; nonce: string; noindex: boolean }): string {
  const robots = o.noindex ? `\n<meta name="robots" content="noindex, noarchive">` : "";
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">${robots}<title>${esc(o.title)}</title>
<link rel="alternate" type="application/activity+json" href="${esc(o.alternate)}">
<style nonce="${esc(o.nonce)}">${STYLE}</style></head>
<body><main>${o.body}</main></body></html>`;
}

function authorHeader(app: App, a: Account, heading: "h1" | "p"): string {
  const avatar = a.avatarFile ? `<img src="${esc(storedImageUrl(app, a.avatarFile))}" alt="">` : "";
  const name = `<${heading} class="name">${esc(a.displayName || a.username)}</${heading}>`;
  return `<header>${avatar}<div>${name}<p class="handle">${esc(handleOf(app, a))}</p></div></header>`;
}

/** A post's body: the content warning (escaped) folds the sanitised content. */
function postBody(s: Status): string {
  if (s.spoilerText === "") return `<div class="content">${s.content}</div>`;
  return `<details><summary>${esc(s.spoilerText)}</summary><div class="content">${s.content}</div></details>`;
}

function postMeta(s: Status): string {
  const at = new Date(s.createdAt).toISOString();
  return `<p class="meta"><a href="${esc(s.url ?? s.uri)}"><time datetime="${esc(at)}">${esc(at.slice(0, 16).replace("T", " "))}</time></a></p>`;
}

function respond(event: H3Event, html: string, nonce: string, link: string): Response {
  const h = event.res.headers;
  h.set("vary", "Accept, Accept-Language, Cookie");
  h.set("link", link);
  return htmlPage(event, 200, html, nonce);
}

/** GET /@alice for browsers: name, handle, bio, fields and recent public posts. */
export function profilePage(app: App, event: H3Event, a: Account, posts: Status[], noindex: boolean): Response {
  const nonce = newNonce();
  const fields = a.fields.length
    ? `<dl class="fields">${a.fields.map((f) => `<dt>${esc(f.name)}</dt><dd>${f.value}</dd>`).join("")}</dl>`
    : "";
  const list = posts.length
    ? posts.map((s) => `<article>${postBody(s)}${postMeta(s)}</article>`).join("")
    : `<p class="meta">No posts yet.</p>`;
  const body = `${authorHeader(app, a, "h1")}<div class="bio">${a.note}</div>${fields}<section><h2>Posts</h2>${list}</section>`;
  const title = `${a.displayName || a.username} (${handleOf(app, a)})`;
  const webfinger = `${app.baseUrl}/.well-known/webfinger?resource=${encodeURIComponent(`acct:${a.username}@${app.config.domain}`)}`;
  const link = `<${webfinger}>; rel="lrdd"; type="application/jrd+json", <${a.uri}>; rel="alternate"; type="application/activity+json"`;
  return respond(event, shell({ title, alternate: a.uri, body, nonce, noindex }), nonce, link);
}

/** GET /@alice/:id for browsers: the post and its author. */
export function statusPage(app: App, event: H3Event, a: Account, s: Status, noindex: boolean): Response {
  const nonce = newNonce();
  const body = `${authorHeader(app, a, "p")}<article>${postBody(s)}${postMeta(s)}</article>`;
  const title = `${a.displayName || a.username} (${handleOf(app, a)})`;
  const link = `<${s.uri}>; rel="alternate"; type="application/activity+json"`;
  return respond(event, shell({ title, alternate: s.uri, body, nonce, noindex }), nonce, link);
}
