import { esc, layout } from "./layout.ts";

// Pages of the remote-interaction flow (/authorize_interaction). Bios and post contents are
// HTML that roost rendered or sanitised when storing them; everything else is escaped.

export interface InteractionAccount {
  handle: string;
  displayName: string;
  noteHtml: string;
  url: string;
}

function accountCard(a: InteractionAccount): string {
  return `<p><strong>${esc(a.displayName || a.handle)}</strong><br><span class="muted">${esc(a.handle)}</span></p>
<div class="muted">${a.noteHtml}</div>`;
}

export function followPage(o: {
  nonce: string;
  viewerHandle: string;
  target: InteractionAccount;
  accountId: string;
  csrf: string;
  state: "none" | "following" | "requested" | "self";
  post?: { contentHtml: string; spoilerText: string; url: string };
}): string {
  const post = o.post
    ? `<blockquote>${o.post.spoilerText ? `<p><em>${esc(o.post.spoilerText)}</em></p>` : o.post.contentHtml}<p class="muted"><a href="${esc(o.post.url)}" rel="noopener">Original post</a></p></blockquote>`
    : "";
  let action: string;
  if (o.state === "self") action = `<p class="muted">This is your own account.</p>`;
  else if (o.state === "following") action = `<p role="status">You are following ${esc(o.target.handle)}.</p>`;
  else if (o.state === "requested") action = `<p role="status">Your follow request to ${esc(o.target.handle)} is waiting for approval.</p>`;
  else
    action = `<form method="post" action="/authorize_interaction">
<input type="hidden" name="authenticity_token" value="${esc(o.csrf)}">
<input type="hidden" name="account_id" value="${esc(o.accountId)}">
<div class="actions"><button type="submit">Follow</button></div></form>`;
  const body = `<h1>Follow ${esc(o.target.handle)}</h1>
<p class="muted">Signed in as ${esc(o.viewerHandle)}</p>
${accountCard(o.target)}${post}${action}`;
  return layout({ title: `Follow ${o.target.handle}`, body, nonce: o.nonce });
}
